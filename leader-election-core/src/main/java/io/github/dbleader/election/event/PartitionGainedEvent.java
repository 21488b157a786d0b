package io.github.dbleader.election.event;

import io.github.dbleader.election.partition.PartitionGroups;

/**
 * Published when this node gains a partition of a group: from now on
 * {@code PartitionGroup.isOwner(partition)} is {@code true} until a
 * {@link PartitionLostEvent} for the same partition and term.
 */
public class PartitionGainedEvent extends PartitionEvent {

	/**
	 * Create an event.
	 * @param source the registry of the node's groups
	 * @param group group name
	 * @param partition the partition
	 * @param term the partition's fencing token for this ownership
	 */
	public PartitionGainedEvent(PartitionGroups source, String group, int partition, long term) {
		super(source, group, partition, term);
	}

}
