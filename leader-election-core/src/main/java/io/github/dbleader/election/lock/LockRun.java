package io.github.dbleader.election.lock;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One run of a task under a lock on this node ({@link ClusterLocks#runLocked}), as this
 * node saw it. The times are this node's wall clock, for people to read; no decision is
 * taken on them.
 *
 * @param name the lock's name
 * @param term the term of the acquisition the run held
 * @param startedAt when this node took the lock
 * @param endedAt when the run ended, or {@code null} while it runs
 * @param outcome how it ended
 */
public record LockRun(String name, long term, Instant startedAt, @Nullable Instant endedAt, Outcome outcome) {

	/**
	 * How long the run took, or has taken so far.
	 * @param now the current time, for a run that has not ended
	 * @return the duration
	 */
	public Duration duration(Instant now) {
		return Duration.between(this.startedAt, (this.endedAt != null) ? this.endedAt : now);
	}

	/**
	 * How a run ended.
	 */
	public enum Outcome {

		/** The run has not ended yet. */
		RUNNING,

		/** The task returned. */
		COMPLETED,

		/** The task threw. */
		FAILED,

		/**
		 * The run ended, and whoever ran it did not say whether the task returned or
		 * threw (a ShedLock {@code LockProvider} learns only that the lock is released).
		 */
		ENDED

	}

}
