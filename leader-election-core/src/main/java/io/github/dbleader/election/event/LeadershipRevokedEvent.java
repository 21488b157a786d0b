package io.github.dbleader.election.event;

import io.github.dbleader.election.RevocationReason;

/**
 * This node stopped being the leader of an election. When a listener runs,
 * {@code Election.isLeader()} already returns {@code false}: stop leader-only work.
 */
public class LeadershipRevokedEvent extends LeadershipEvent {

	private final String nodeId;

	private final long term;

	private final RevocationReason reason;

	/**
	 * Create an event.
	 * @param source the object that published the event
	 * @param election the election name
	 * @param nodeId this node
	 * @param term the term that ended
	 * @param reason why it ended
	 */
	public LeadershipRevokedEvent(Object source, String election, String nodeId, long term, RevocationReason reason) {
		super(source, election);
		this.nodeId = nodeId;
		this.term = term;
		this.reason = reason;
	}

	/**
	 * Return the node that stopped leading (this node).
	 * @return the node id
	 */
	public String getNodeId() {
		return this.nodeId;
	}

	/**
	 * Return the term that ended.
	 * @return the term
	 */
	public long getTerm() {
		return this.term;
	}

	/**
	 * Return why leadership ended.
	 * @return the reason
	 */
	public RevocationReason getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LeadershipRevokedEvent[election=" + getElection() + ", nodeId=" + this.nodeId + ", term=" + this.term
				+ ", reason=" + this.reason + "]";
	}

}
