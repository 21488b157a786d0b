package io.github.dbleader.autoconfigure.partition;

import io.github.dbleader.election.partition.PartitionGroups;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this node gains a partition of a group: from now on
 * {@code PartitionGroup.isOwner(partition)} is {@code true} until a
 * {@link PartitionLostEvent} for the same partition and term. Published on the election's
 * notification thread, never on the heartbeat thread.
 */
public class PartitionGainedEvent extends ApplicationEvent {

	private final String group;

	private final int partition;

	private final long term;

	/**
	 * Create an event.
	 * @param source the registry of the node's groups
	 * @param group group name
	 * @param partition the partition
	 * @param term the partition's fencing token for this ownership
	 */
	public PartitionGainedEvent(PartitionGroups source, String group, int partition, long term) {
		super(source);
		this.group = group;
		this.partition = partition;
		this.term = term;
	}

	/** @return the group name */
	public String getGroup() {
		return this.group;
	}

	/** @return the partition */
	public int getPartition() {
		return this.partition;
	}

	/** @return the partition's fencing token for this ownership */
	public long getTerm() {
		return this.term;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[group=" + this.group + ", partition=" + this.partition + ", term="
				+ this.term + "]";
	}

}
