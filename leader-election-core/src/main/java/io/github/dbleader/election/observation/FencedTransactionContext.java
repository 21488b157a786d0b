package io.github.dbleader.election.observation;

import java.util.Objects;

/**
 * Context of the observation of a fenced transaction
 * ({@link LeaderElectionObservationDocumentation#FENCED_TRANSACTION}).
 */
public class FencedTransactionContext extends OutcomeContext<FencedTransactionContext.Outcome> {

	private final String election;

	private final long term;

	/**
	 * Create a context.
	 * @param election the election whose fence the transaction passes; for a cluster
	 * lock, the lock's lease row ({@code lock:} and the lock's name)
	 * @param term the term the transaction runs for, or -1 if this node holds none
	 */
	public FencedTransactionContext(String election, long term) {
		super(Outcome.RUNNING);
		this.election = Objects.requireNonNull(election, "election must not be null");
		this.term = term;
	}

	/**
	 * @return the election whose fence the transaction passes, or the lease row of a lock
	 */
	public String getElection() {
		return this.election;
	}

	/**
	 * @return the term the transaction runs for, or -1 if this node holds none
	 */
	public long getTerm() {
		return this.term;
	}

	/** What became of a fenced transaction. */
	public enum Outcome {

		/** The transaction has not ended yet. */
		RUNNING,

		/** The fence passed, the work returned and the transaction committed. */
		COMMITTED,

		/**
		 * This node did not hold the term, or the fence refused it (the leadership or the
		 * lock had ended; on Galera, certification aborted it): nothing was committed.
		 */
		REFUSED,

		/** The work or the database failed otherwise: nothing was committed. */
		FAILED

	}

}
