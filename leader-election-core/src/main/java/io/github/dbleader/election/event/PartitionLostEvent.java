package io.github.dbleader.election.event;

import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.partition.PartitionGroups;

/**
 * Published when this node no longer owns a partition of a group; by then
 * {@code PartitionGroup.isOwner(partition)} is already {@code false}.
 */
public class PartitionLostEvent extends PartitionEvent {

	private final RevocationReason reason;

	/**
	 * Create an event.
	 * @param source the registry of the node's groups
	 * @param group group name
	 * @param partition the partition
	 * @param term the term that ended
	 * @param reason why it ended ({@link RevocationReason#HANDED_OVER} when balancing
	 * moved it)
	 */
	public PartitionLostEvent(PartitionGroups source, String group, int partition, long term, RevocationReason reason) {
		super(source, group, partition, term);
		this.reason = reason;
	}

	/**
	 * @return why it ended
	 */
	public RevocationReason getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return super.toString() + "[reason=" + this.reason + "]";
	}

}
