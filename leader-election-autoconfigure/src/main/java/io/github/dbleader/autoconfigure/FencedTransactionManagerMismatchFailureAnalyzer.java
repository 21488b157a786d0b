package io.github.dbleader.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link FencedTransactionManagerMismatchException} into a start-up report that
 * names the transaction manager, both data sources and the ways out.
 */
class FencedTransactionManagerMismatchFailureAnalyzer
		extends AbstractFailureAnalyzer<FencedTransactionManagerMismatchException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, FencedTransactionManagerMismatchException cause) {
		String nl = System.lineSeparator();
		String description = "Leader election cannot start: its fenced transactions would run on transaction manager "
				+ cause.getTransactionManager() + ", which manages DataSource " + cause.getManagedDataSource()
				+ ", but the leases and their fence rows are in DataSource " + cause.getElectionDataSource() + "." + nl
				+ nl + "Reason: a fenced transaction must lock the fence row in the same transaction as the "
				+ "work it fences; on another database it would fence nothing.";
		String action = "Consider one of the following:" + nl + "\tDefine a transaction manager bean for DataSource "
				+ cause.getElectionDataSource()
				+ " (fenced transactions use the one that manages the election's DataSource; keep the one of "
				+ "your other DataSource, marked @Primary)." + nl + "\tRun the election on DataSource "
				+ cause.getManagedDataSource() + " (mark it @LeaderElectionDataSource, or @Primary).";
		return new FailureAnalysis(description, action, cause);
	}

}
