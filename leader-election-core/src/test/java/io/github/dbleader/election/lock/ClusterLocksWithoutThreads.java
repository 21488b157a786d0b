package io.github.dbleader.election.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.function.BiFunction;

import io.github.dbleader.election.MonotonicClock;

/**
 * Cluster locks whose keep-alive rounds the caller runs where it likes, instead of on a
 * thread of their own: the simulation of the election package runs them as events in
 * simulated time.
 */
public final class ClusterLocksWithoutThreads {

	private ClusterLocksWithoutThreads() {
	}

	/**
	 * Create cluster locks as {@code ClusterLocks}'s public constructor does, with the
	 * keep-alive's rounds started by the caller.
	 * @param repository the lock statements
	 * @param nodeId the node
	 * @param clock the monotonic clock
	 * @param keepAlive the keep-alive's settings
	 * @param rounds given a round and the renew interval, starts the rounds (the first an
	 * interval from now, each an interval after the previous one ended) and returns what
	 * stops them
	 * @return the cluster locks
	 */
	public static ClusterLocks create(LockRepository repository, String nodeId, MonotonicClock clock,
			KeepAliveSettings keepAlive, BiFunction<Runnable, Duration, Runnable> rounds) {
		return new ClusterLocks(repository, nodeId, clock, Clock.systemUTC(), LockRunListener.NONE, keepAlive,
				rounds::apply);
	}

}
