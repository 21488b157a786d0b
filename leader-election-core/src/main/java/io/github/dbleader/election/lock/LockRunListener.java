package io.github.dbleader.election.lock;

import java.time.Duration;

/**
 * Told what {@link ClusterLocks} did, on the thread that did it: keep it short, it delays
 * the task. Every method does nothing by default.
 */
public interface LockRunListener {

	/** A listener that does nothing. */
	LockRunListener NONE = new LockRunListener() {
	};

	/**
	 * This node took a lock.
	 * @param name the lock's name
	 * @param term the term of the acquisition
	 */
	default void acquired(String name, long term) {
	}

	/**
	 * This node tried a lock and did not get it: another node (or another run here) holds
	 * it, or the database failed.
	 * @param name the lock's name
	 */
	default void skipped(String name) {
	}

	/**
	 * This node stopped using an acquisition: it released the lock, or the run that took
	 * it ended and the lock is left to expire. Called once per acquisition.
	 * @param name the lock's name
	 * @param term the term of the acquisition
	 * @param heldFor from just before the lock was taken until now, on the monotonic
	 * clock
	 */
	default void ended(String name, long term, Duration heldFor) {
	}

	/**
	 * A run under a lock ended.
	 * @param run the run
	 */
	default void runEnded(LockRun run) {
	}

}
