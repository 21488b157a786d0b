package io.github.dbleader.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Turns an {@link InvalidLeaderElectionPropertyException} into a start-up report that
 * names the property, the value given (as written in the configuration, when the
 * environment has it) and what is allowed.
 */
class InvalidLeaderElectionPropertyFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidLeaderElectionPropertyException> {

	private final @Nullable Environment environment;

	InvalidLeaderElectionPropertyFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLeaderElectionPropertyException cause) {
		String given = (this.environment != null) ? this.environment.getProperty(cause.getProperty()) : null;
		Object rejected = (given != null) ? given : cause.getValue();
		String value = (rejected != null) ? "'" + rejected + "'" : "(not set)";
		String description = "Leader election cannot start: invalid value " + value + " for property '"
				+ cause.getProperty() + "'." + System.lineSeparator() + System.lineSeparator() + "Reason: "
				+ cause.getReason() + ".";
		String action = "Update '" + cause.getProperty() + "' in your configuration. Allowed: " + cause.getAllowed()
				+ ".";
		return new FailureAnalysis(description, action, cause);
	}

}
