package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.Objects;

import io.github.dbleader.election.ElectionSettings;

/**
 * How {@link HeldLock#keepAlive kept-alive} locks are renewed: every
 * {@code renewInterval}, one statement makes all of a node's kept-alive locks expire
 * {@code leaseDuration} from then (database clock), so that a crashed holder frees its
 * locks about one lease after its last renewal, as a crashed leader frees its elections.
 *
 * @param leaseDuration how long after its last renewal a kept-alive lock expires
 * @param renewInterval how often the locks are renewed; well below the lease duration
 */
public record KeepAliveSettings(Duration leaseDuration, Duration renewInterval) {

	/**
	 * Check the settings.
	 * @param leaseDuration how long after its last renewal a kept-alive lock expires
	 * @param renewInterval how often the locks are renewed
	 * @throws IllegalArgumentException if a renewal could not be retried once within the
	 * holder's belief (lease less a fifth)
	 */
	public KeepAliveSettings {
		Objects.requireNonNull(leaseDuration, "leaseDuration must not be null");
		Objects.requireNonNull(renewInterval, "renewInterval must not be null");
		if (renewInterval.isNegative() || renewInterval.isZero() || renewInterval.multipliedBy(2)
			.compareTo(leaseDuration.minus(ElectionSettings.defaultGuard(leaseDuration))) > 0) {
			throw new IllegalArgumentException("renewInterval (" + renewInterval + ") must be positive and at most"
					+ " half of leaseDuration (" + leaseDuration + ") less a fifth of it");
		}
	}

	/**
	 * The election's lease duration and renew interval.
	 * @param settings the election's settings
	 * @return the keep-alive settings
	 */
	public static KeepAliveSettings of(ElectionSettings settings) {
		return new KeepAliveSettings(settings.leaseDuration(), settings.renewInterval());
	}

}
