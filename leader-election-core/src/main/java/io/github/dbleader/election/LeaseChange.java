package io.github.dbleader.election;

import org.jspecify.annotations.Nullable;

/**
 * A change of holder that an election's state machine asks the heartbeat to carry out:
 * one single-row conditional statement (in a transaction with the fence row).
 *
 * @param kind what to do
 * @param term the term the change is conditional on (re-acquire, hand-over, yield), or -1
 * @param observed for a take-over: what was seen unchanged for a whole lease
 * ({@link LeaseObservation#vacant()} to take only a vacant lease), otherwise {@code null}
 * @param target for a hand-over: the node that gets the lease
 */
record LeaseChange(Kind kind, long term, @Nullable LeaseObservation observed, @Nullable String target) {

	static LeaseChange create() {
		return new LeaseChange(Kind.CREATE, -1, null, null);
	}

	static LeaseChange takeOver(LeaseObservation observed) {
		return new LeaseChange(Kind.TAKE_OVER, -1, observed, null);
	}

	static LeaseChange reacquire(long term) {
		return new LeaseChange(Kind.REACQUIRE, term, null, null);
	}

	static LeaseChange handOver(long term, String target) {
		return new LeaseChange(Kind.HAND_OVER, term, null, target);
	}

	static LeaseChange yield(long term) {
		return new LeaseChange(Kind.YIELD, term, null, null);
	}

	/**
	 * Whether carrying the change out makes this node the holder, so that the row must be
	 * read again to adopt the new term.
	 * @return {@code true} for create, take-over and re-acquire
	 */
	boolean acquires() {
		return this.kind == Kind.CREATE || this.kind == Kind.TAKE_OVER || this.kind == Kind.REACQUIRE;
	}

	/** The changes of holder. */
	enum Kind {

		/** Create the lease row with this node as its first holder. */
		CREATE,

		/** Take a vacant lease, or one that expired. */
		TAKE_OVER,

		/** Take this node's own lease again under a new term. */
		REACQUIRE,

		/** Give the lease to another node under a new term. */
		HAND_OVER,

		/** Make the lease vacant. */
		YIELD

	}

}
