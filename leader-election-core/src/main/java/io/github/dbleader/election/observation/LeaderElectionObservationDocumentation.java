package io.github.dbleader.election.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the leader election, with their default conventions and key names.
 * Low-cardinality key values are names of elections and locks, methods and outcomes, fit
 * for meter tags; terms and node ids are high-cardinality, for spans only.
 */
public enum LeaderElectionObservationDocumentation implements ObservationDocumentation {

	/**
	 * A call of a {@code @LeaderOnly} method: run where this node leads, skipped
	 * elsewhere.
	 */
	LEADER_ONLY_CALL {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLeaderOnlyCallObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { KeyNames.ELECTION, KeyNames.OUTCOME, KeyNames.CODE_NAMESPACE,
					KeyNames.CODE_FUNCTION };
		}

	},

	/**
	 * A call that runs under a cluster lock ({@code @ClusterLock},
	 * {@code ClusterLocks.runLocked} or a run started with
	 * {@code ClusterLocks.startRun}): run if the lock was taken, skipped otherwise.
	 */
	LOCK_CALL {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockCallObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { KeyNames.LOCK, KeyNames.OUTCOME };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { KeyNames.TERM };
		}

	},

	/**
	 * A fenced transaction of an election ({@code Election.runFenced}) or of a cluster
	 * lock ({@code HeldLock.runFenced}): committed, refused by the fence, or failed.
	 */
	FENCED_TRANSACTION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultFencedTransactionObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { KeyNames.ELECTION, KeyNames.OUTCOME };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { KeyNames.TERM };
		}

	},

	/**
	 * This node was granted or lost the leadership of an election: a short observation,
	 * at the moment the listeners hear of it.
	 */
	LEADERSHIP_CHANGE {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLeadershipChangeObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { KeyNames.ELECTION, KeyNames.CHANGE, KeyNames.REASON };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { KeyNames.NODE, KeyNames.TERM };
		}

	};

	/** The keys of the observations' key values. */
	public enum KeyNames implements KeyName {

		/**
		 * Name of the election: the one a {@code @LeaderOnly} method is guarded by, the
		 * one whose leadership changed, or the one whose fence a fenced transaction
		 * passes (for a cluster lock's, the lock's lease row: {@code lock:} and the
		 * lock's name).
		 */
		ELECTION("election"),

		/** Name of the cluster lock. */
		LOCK("lock"),

		/**
		 * What became of the call or transaction, in lower case:
		 * {@link LeaderOnlyCallContext.Outcome}, {@link LockCallContext.Outcome},
		 * {@link FencedTransactionContext.Outcome}.
		 */
		OUTCOME("outcome"),

		/** Class of the target of a {@code @LeaderOnly} call. */
		CODE_NAMESPACE("code.namespace"),

		/** Name of the {@code @LeaderOnly} method called. */
		CODE_FUNCTION("code.function"),

		/**
		 * {@code granted} or {@code revoked} ({@link LeadershipChangeContext.Change}).
		 */
		CHANGE("change"),

		/**
		 * Why leadership was revoked: the revocation reason in lower case, e.g.
		 * {@code handed_over}; {@code none} for a grant.
		 */
		REASON("reason"),

		/** This node's id (high cardinality). */
		NODE("node"),

		/**
		 * The term (fencing token) of the leadership or of the lock's acquisition (high
		 * cardinality); absent where there is none.
		 */
		TERM("term");

		private final String key;

		KeyNames(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

}
