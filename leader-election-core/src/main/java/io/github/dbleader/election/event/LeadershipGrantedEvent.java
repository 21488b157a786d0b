package io.github.dbleader.election.event;

/**
 * This node became the leader of an election. By the time a listener runs, leadership may
 * already have ended again: check {@code Election.isLeader()} or use a fenced transaction
 * before doing work that must happen only once.
 */
public class LeadershipGrantedEvent extends LeadershipEvent {

	private final String nodeId;

	private final long term;

	/**
	 * Create an event.
	 * @param source the object that published the event
	 * @param election the election name
	 * @param nodeId this node
	 * @param term the fencing token of the new leadership
	 */
	public LeadershipGrantedEvent(Object source, String election, String nodeId, long term) {
		super(source, election);
		this.nodeId = nodeId;
		this.term = term;
	}

	/**
	 * Return the node that became leader (this node).
	 * @return the node id
	 */
	public String getNodeId() {
		return this.nodeId;
	}

	/**
	 * Return the term (fencing token) of the new leadership.
	 * @return the term
	 */
	public long getTerm() {
		return this.term;
	}

	@Override
	public String toString() {
		return "LeadershipGrantedEvent[election=" + getElection() + ", nodeId=" + this.nodeId + ", term=" + this.term
				+ "]";
	}

}
