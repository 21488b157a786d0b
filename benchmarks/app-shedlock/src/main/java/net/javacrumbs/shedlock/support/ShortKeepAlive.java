package net.javacrumbs.shedlock.support;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

/**
 * ShedLock's {@link KeepAliveLockProvider} with a shorter floor for {@code lockAtMostFor}
 * than its public constructor's 30 s, through the package-private constructor ShedLock's
 * own tests use: the long-run benchmark compares keep-alive locks at the same
 * {@code atMostFor} (the 3 s lease) for every system. Nothing else of ShedLock changes.
 */
public final class ShortKeepAlive {

	private ShortKeepAlive() {
	}

	/**
	 * Wrap a provider in ShedLock's keep-alive.
	 * @param provider the extensible provider
	 * @param executor runs the extensions
	 * @param minimalLockAtMostFor the shortest {@code lockAtMostFor} it accepts
	 * @return ShedLock's keep-alive provider
	 */
	public static LockProvider keepAlive(ExtensibleLockProvider provider, ScheduledExecutorService executor,
			Duration minimalLockAtMostFor) {
		return new KeepAliveLockProvider(provider, executor, minimalLockAtMostFor);
	}

}
