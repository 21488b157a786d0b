package io.github.dbleader.election;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Callback for changes of leadership. Invoked on a dedicated notification thread, in the
 * order the changes happened, never on the thread that renews the lease, so a slow
 * listener cannot delay the heartbeat. Exceptions thrown by a listener are logged and
 * ignored.
 *
 * <p>
 * A callback arrives after the fact: when {@link #revoked} runs,
 * {@link Election#isLeader()} already returns {@code false}.
 */
public interface LeadershipListener {

	/** A listener that does nothing. */
	LeadershipListener NONE = new LeadershipListener() {
	};

	/**
	 * This node became the leader of an election.
	 * @param election election name
	 * @param nodeId this node
	 * @param term fencing token of the new leadership
	 */
	default void granted(String election, String nodeId, long term) {
	}

	/**
	 * This node stopped being the leader of an election.
	 * @param election election name
	 * @param nodeId this node
	 * @param term the term that ended
	 * @param reason why it ended
	 */
	default void revoked(String election, String nodeId, long term, RevocationReason reason) {
	}

	/**
	 * This node saw the leader of an election change (any node, not only this one).
	 * @param election election name
	 * @param previousLeader the leader seen before, or {@code null} if none
	 * @param newLeader the leader seen now, or {@code null} if the lease is vacant
	 * @param term term of the new leader (or of the vacant lease)
	 */
	default void leaderChanged(String election, @Nullable String previousLeader, @Nullable String newLeader,
			long term) {
	}

	/**
	 * One heartbeat round of this node ended: the batched candidacy, renewal and read of
	 * all of its elections, and the changes of holder they led to. Meant for metrics:
	 * called once per renew interval, so keep it cheap.
	 * @param nodeId this node
	 * @param elections how many elections the round covered
	 * @param succeeded whether every statement of the round succeeded; {@code false} if
	 * the database could not be reached or a statement failed
	 * @param duration how long the round took
	 */
	default void heartbeat(String nodeId, int elections, boolean succeeded, Duration duration) {
	}

}
