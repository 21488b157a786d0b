package io.github.dbleader.election;

import java.time.Duration;
import java.util.Objects;

/**
 * Timing of an election, validated at construction.
 *
 * <ul>
 * <li>{@code leaseDuration} (L): how long a lease lasts at the database after each
 * successful renewal; a crashed leader is replaced after about {@code L + renewInterval}.
 * <li>{@code renewInterval} (R): how often every node talks to the database (leaders
 * renew, followers check the lease).
 * <li>{@code guard} (G): how much earlier than the database the leader stops believing it
 * leads; absorbs differences of clock rate between nodes. A leader believes for at most
 * {@code L - G} after it sent its last successful renewal.
 * <li>{@code statementTimeout}: limit of every statement the election sends; must be
 * shorter than R.
 * </ul>
 * Invariant checked here: {@code 0 < R}, {@code 2R <= L - G} (a failed renewal is retried
 * at least once before belief ends), and {@code statementTimeout < R}.
 *
 * @param leaseDuration lease duration L
 * @param renewInterval renew interval R
 * @param guard guard G
 * @param statementTimeout timeout of each election statement
 */
public record ElectionSettings(Duration leaseDuration, Duration renewInterval, Duration guard,
		Duration statementTimeout) {

	/** Default lease duration: 10 seconds. */
	public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(10);

	/** Default renew interval: 2 seconds. */
	public static final Duration DEFAULT_RENEW_INTERVAL = Duration.ofSeconds(2);

	/**
	 * Create validated settings.
	 * @throws InvalidElectionSettingsException if a value is not positive, or the values
	 * do not fit together
	 * @throws NullPointerException if a value is missing
	 */
	public ElectionSettings {
		Objects.requireNonNull(leaseDuration, "leaseDuration must not be null");
		Objects.requireNonNull(renewInterval, "renewInterval must not be null");
		Objects.requireNonNull(guard, "guard must not be null");
		Objects.requireNonNull(statementTimeout, "statementTimeout must not be null");
		requirePositive("leaseDuration", leaseDuration);
		requirePositive("renewInterval", renewInterval);
		requirePositive("guard", guard);
		requirePositive("statementTimeout", statementTimeout);
		if (guard.compareTo(leaseDuration) >= 0) {
			throw new InvalidElectionSettingsException("guard", guard,
					InvalidElectionSettingsException.Rule.GUARD_SHORTER_THAN_LEASE, leaseDuration,
					"guard (" + guard + ") must be shorter than leaseDuration (" + leaseDuration + ")");
		}
		Duration belief = leaseDuration.minus(guard);
		if (renewInterval.multipliedBy(2).compareTo(belief) > 0) {
			throw new InvalidElectionSettingsException("renewInterval", renewInterval,
					InvalidElectionSettingsException.Rule.RENEW_INTERVAL_AT_MOST_HALF_THE_BELIEF, belief.dividedBy(2),
					"renewInterval (" + renewInterval + ") must be at most half of leaseDuration minus guard ("
							+ leaseDuration + " - " + guard
							+ "), so that a failed renewal is retried before the leader's belief ends");
		}
		if (statementTimeout.compareTo(renewInterval) >= 0) {
			throw new InvalidElectionSettingsException("statementTimeout", statementTimeout,
					InvalidElectionSettingsException.Rule.STATEMENT_TIMEOUT_SHORTER_THAN_RENEW_INTERVAL, renewInterval,
					"statementTimeout (" + statementTimeout + ") must be shorter than renewInterval (" + renewInterval
							+ ")");
		}
	}

	/**
	 * Settings with the given lease and renew interval, a guard of a fifth of the lease
	 * and a statement timeout of half the renew interval.
	 * @param leaseDuration lease duration
	 * @param renewInterval renew interval
	 * @return validated settings
	 */
	public static ElectionSettings of(Duration leaseDuration, Duration renewInterval) {
		Objects.requireNonNull(leaseDuration, "leaseDuration must not be null");
		Objects.requireNonNull(renewInterval, "renewInterval must not be null");
		return new ElectionSettings(leaseDuration, renewInterval, defaultGuard(leaseDuration),
				defaultStatementTimeout(renewInterval));
	}

	/**
	 * Default settings: lease 10s, renew interval 2s, guard 2s, statement timeout 1s.
	 * @return the defaults
	 */
	public static ElectionSettings defaults() {
		return of(DEFAULT_LEASE_DURATION, DEFAULT_RENEW_INTERVAL);
	}

	/**
	 * Default guard for a lease: a fifth of it.
	 * @param leaseDuration the lease
	 * @return the guard
	 */
	public static Duration defaultGuard(Duration leaseDuration) {
		return leaseDuration.dividedBy(5);
	}

	/**
	 * Default statement timeout for a renew interval: half of it.
	 * @param renewInterval the renew interval
	 * @return the timeout
	 */
	public static Duration defaultStatementTimeout(Duration renewInterval) {
		return renewInterval.dividedBy(2);
	}

	private static void requirePositive(String name, Duration value) {
		if (value.isZero() || value.isNegative()) {
			throw new InvalidElectionSettingsException(name, value, InvalidElectionSettingsException.Rule.POSITIVE,
					Duration.ZERO, name + " must be positive but was " + value);
		}
	}

}
