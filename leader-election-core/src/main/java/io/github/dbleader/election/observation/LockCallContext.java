package io.github.dbleader.election.observation;

import java.util.Objects;

/**
 * Context of the observation of a call under a cluster lock
 * ({@link LeaderElectionObservationDocumentation#LOCK_CALL}).
 */
public class LockCallContext extends OutcomeContext<LockCallContext.Outcome> {

	private final String lock;

	private volatile long term = -1;

	/**
	 * Create a context.
	 * @param lock the lock's name
	 */
	public LockCallContext(String lock) {
		super(Outcome.RUNNING);
		this.lock = Objects.requireNonNull(lock, "lock must not be null");
	}

	/**
	 * @return the lock's name
	 */
	public String getLock() {
		return this.lock;
	}

	/**
	 * @return the term of the lock's acquisition, or -1 if it was not taken (yet)
	 */
	public long getTerm() {
		return this.term;
	}

	/**
	 * Say that the lock was taken.
	 * @param term the term of the acquisition
	 */
	public void setTerm(long term) {
		this.term = term;
	}

	/** What became of a call under a cluster lock. */
	public enum Outcome {

		/** The call has not ended yet. */
		RUNNING,

		/** The lock was taken, and the task returned. */
		COMPLETED,

		/** The lock was taken, and the task threw. */
		FAILED,

		/**
		 * The lock was taken and the run ended, and whoever ran it did not say whether
		 * the task returned or threw (a ShedLock {@code LockProvider} learns only that
		 * the lock is released).
		 */
		ENDED,

		/**
		 * The lock was not taken (held elsewhere, or the database failed): the task did
		 * not run.
		 */
		SKIPPED

	}

}
