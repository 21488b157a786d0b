package io.github.dbleader.autoconfigure;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.HeartbeatFailure;
import org.jspecify.annotations.Nullable;

/**
 * The states of a node that make the health of all of its elections DOWN, each also the
 * {@code state} tag of a {@code leader.election.node.state} gauge. They are the node's,
 * not an election's: any election of the node tells them ({@link #of}).
 */
public enum NodeState {

	/**
	 * The database has not answered since the node started: it takes part in no election
	 * yet.
	 */
	WAITING_FOR_DATABASE,

	/**
	 * The database has not answered for longer than {@code lease - guard} (or the
	 * heartbeat has been stuck in a statement for that long): the node leads nothing.
	 */
	DATABASE_UNREACHABLE,

	/**
	 * The database answers but has refused the heartbeat's statements for longer than
	 * {@code lease - guard} (missing privilege or table, a constraint...): the kind is
	 * counted by {@code leader.election.heartbeat.failures}.
	 */
	HEARTBEAT_FAILING,

	/**
	 * Another running instance uses this node's id: this one takes no part.
	 */
	NODE_ID_IN_USE;

	/**
	 * The state the node is in, the first that applies in the order above.
	 * @param election any election of the node
	 * @return the state, or {@code null} if none applies (a healthy node)
	 */
	public static @Nullable NodeState of(Election election) {
		if (election.isWaitingForDatabase()) {
			return WAITING_FOR_DATABASE;
		}
		HeartbeatFailure failure = election.heartbeatFailure().orElse(null);
		if (!election.isDatabaseReachable() || (failure != null && failure.persistent())) {
			// Without a failure: the heartbeat is stuck in a statement.
			return (failure == null || failure.kind().databaseUnreachable()) ? DATABASE_UNREACHABLE : HEARTBEAT_FAILING;
		}
		return election.isNodeIdInUseElsewhere() ? NODE_ID_IN_USE : null;
	}

}
