package io.github.dbleader.election.event;

import org.jspecify.annotations.Nullable;

/**
 * This node saw the leader of an election change, whichever node leads. Every node
 * receives it, so it suits caches or routing that must know the current leader; it says
 * nothing about this node's own leadership (see {@link LeadershipGrantedEvent}).
 */
public class LeaderChangedEvent extends LeadershipEvent {

	private final @Nullable String previousLeader;

	private final @Nullable String newLeader;

	private final long term;

	/**
	 * Create an event.
	 * @param source the object that published the event
	 * @param election the election name
	 * @param previousLeader the leader seen before, or {@code null} if none was seen
	 * @param newLeader the leader seen now, or {@code null} if the lease is vacant
	 * @param term the term of the new leader (or of the vacant lease)
	 */
	public LeaderChangedEvent(Object source, String election, @Nullable String previousLeader,
			@Nullable String newLeader, long term) {
		super(source, election);
		this.previousLeader = previousLeader;
		this.newLeader = newLeader;
		this.term = term;
	}

	/**
	 * Return the leader seen before the change.
	 * @return the node id, or {@code null} if this node had seen no leader
	 */
	public @Nullable String getPreviousLeader() {
		return this.previousLeader;
	}

	/**
	 * Return the leader seen now.
	 * @return the node id, or {@code null} if nobody leads
	 */
	public @Nullable String getNewLeader() {
		return this.newLeader;
	}

	/**
	 * Return the term of the new leader.
	 * @return the term
	 */
	public long getTerm() {
		return this.term;
	}

	@Override
	public String toString() {
		return "LeaderChangedEvent[election=" + getElection() + ", previousLeader=" + this.previousLeader
				+ ", newLeader=" + this.newLeader + ", term=" + this.term + "]";
	}

}
