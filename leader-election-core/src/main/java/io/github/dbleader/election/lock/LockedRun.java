package io.github.dbleader.election.lock;

import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;

/**
 * A run under a cluster lock that {@link ClusterLocks#startRun} started and whose end its
 * caller reports. Safe to use from several threads.
 */
public final class LockedRun {

	private final ClusterLocks locks;

	private final HeldLock lock;

	/** The current locks of the thread that started the run. */
	private final Deque<HeldLock> threadLocks;

	private final AtomicBoolean ended = new AtomicBoolean();

	/** The run's observation, started; stopped when the run ends. */
	private final Observation observation;

	LockedRun(ClusterLocks locks, HeldLock lock, Deque<HeldLock> threadLocks, Observation observation) {
		this.locks = locks;
		this.lock = lock;
		this.threadLocks = threadLocks;
		this.observation = observation;
	}

	/**
	 * @return the lock the run holds
	 */
	public HeldLock lock() {
		return this.lock;
	}

	/**
	 * End the run, once: the lock is no longer the current lock of the thread that
	 * started the run, it is released if asked (otherwise it expires after its
	 * {@code atMostFor}), and the run is recorded with its outcome. Ending twice does
	 * nothing.
	 * @param outcome how the run ended
	 * @param release whether to release the lock
	 * @return whether this call ended the run
	 */
	public boolean end(LockRun.Outcome outcome, boolean release) {
		Objects.requireNonNull(outcome, "outcome must not be null");
		if (outcome == LockRun.Outcome.RUNNING) {
			throw new IllegalArgumentException("a run cannot end RUNNING");
		}
		if (!this.ended.compareAndSet(false, true)) {
			return false;
		}
		this.locks.end(this, outcome, release);
		return true;
	}

	/**
	 * @return the run's observation, started; it stops when the run ends
	 */
	Observation observation() {
		return this.observation;
	}

	Deque<HeldLock> threadLocks() {
		return this.threadLocks;
	}

	@Override
	public String toString() {
		return "LockedRun[" + this.lock + "]";
	}

}
