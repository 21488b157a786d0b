package io.github.dbleader.election;

import java.time.Duration;

/**
 * Thrown by {@link ElectionSettings} for a value that breaks one of its rules: it names
 * the setting, its value and the rule, so that a caller that read the settings from
 * somewhere (the Spring Boot properties) can name its own source in its report without
 * checking the rules a second time.
 */
public class InvalidElectionSettingsException extends IllegalArgumentException {

	/** The rules of {@link ElectionSettings}. */
	public enum Rule {

		/** Every duration is positive. */
		POSITIVE,

		/** The guard is shorter than the lease ({@link #bound()}: the lease). */
		GUARD_SHORTER_THAN_LEASE,

		/**
		 * The renew interval is at most half the lease minus the guard, so that a failed
		 * renewal is retried before the leader's belief ends ({@link #bound()}: that
		 * half).
		 */
		RENEW_INTERVAL_AT_MOST_HALF_THE_BELIEF,

		/**
		 * A statement times out before the next renewal is due ({@link #bound()}: the
		 * renew interval).
		 */
		STATEMENT_TIMEOUT_SHORTER_THAN_RENEW_INTERVAL

	}

	private final String setting;

	private final Duration value;

	private final Rule rule;

	private final Duration bound;

	InvalidElectionSettingsException(String setting, Duration value, Rule rule, Duration bound, String message) {
		super(message);
		this.setting = setting;
		this.value = value;
		this.rule = rule;
		this.bound = bound;
	}

	/**
	 * @return the setting that breaks the rule: {@code leaseDuration},
	 * {@code renewInterval}, {@code guard} or {@code statementTimeout}
	 */
	public String setting() {
		return this.setting;
	}

	/**
	 * @return its value
	 */
	public Duration value() {
		return this.value;
	}

	/**
	 * @return the rule it breaks
	 */
	public Rule rule() {
		return this.rule;
	}

	/**
	 * @return the value the rule compares it with (zero for {@link Rule#POSITIVE})
	 */
	public Duration bound() {
		return this.bound;
	}

}
