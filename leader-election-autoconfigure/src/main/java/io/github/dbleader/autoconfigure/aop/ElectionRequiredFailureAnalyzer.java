package io.github.dbleader.autoconfigure.aop;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link ElectionRequiredException} into a start-up report that names a guarded
 * method, why no election could be configured, and the ways to choose the election's
 * database or to run the methods on every node on purpose.
 */
class ElectionRequiredFailureAnalyzer extends AbstractFailureAnalyzer<ElectionRequiredException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ElectionRequiredException cause) {
		String nl = System.lineSeparator();
		String description = cause.getAnnotation() + " method " + cause.getGuardedMethod()
				+ " needs leader election, but no election could be configured." + nl + nl + "Reason: "
				+ cause.getReason() + "." + nl + nl
				+ "Without an election such methods would run on every node, so the application does not start.";
		StringBuilder action = new StringBuilder("Consider one of the following:").append(nl);
		if (cause.getDataSources().isEmpty()) {
			action.append("\tDefine a DataSource (for instance with spring.datasource.url).").append(nl);
		}
		else {
			action.append("\tMark the DataSource bean the election should use @Primary.").append(nl);
			action
				.append("\tOr mark it with the qualifier @LeaderElectionDataSource (the election then uses it, "
						+ "and your @Primary one stays the application's).")
				.append(nl);
		}
		action
			.append("\tSet leader-election.jdbc.url (with leader-election.jdbc.username and "
					+ "leader-election.jdbc.password) to give the election a database connection of its own.")
			.append(nl);
		action.append("\tSet leader-election.enabled=false to run the ")
			.append(cause.getAnnotation())
			.append(" methods on every node on purpose.");
		return new FailureAnalysis(description, action.toString(), cause);
	}

}
