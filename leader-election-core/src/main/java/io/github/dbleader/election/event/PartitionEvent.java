package io.github.dbleader.election.event;

import io.github.dbleader.election.partition.PartitionGroups;

import org.springframework.context.ApplicationEvent;

/**
 * A change of ownership of one partition on this node. Published on the election's
 * notification thread, never on the heartbeat thread.
 */
public abstract class PartitionEvent extends ApplicationEvent {

	private final String group;

	private final int partition;

	private final long term;

	/**
	 * Create an event.
	 * @param source the registry of the node's groups
	 * @param group group name
	 * @param partition the partition
	 * @param term the partition's fencing token of the ownership that began or ended
	 */
	protected PartitionEvent(PartitionGroups source, String group, int partition, long term) {
		super(source);
		this.group = group;
		this.partition = partition;
		this.term = term;
	}

	/**
	 * @return the group name
	 */
	public String getGroup() {
		return this.group;
	}

	/**
	 * @return the partition
	 */
	public int getPartition() {
		return this.partition;
	}

	/**
	 * @return the partition's fencing token of the ownership that began or ended
	 */
	public long getTerm() {
		return this.term;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[group=" + this.group + ", partition=" + this.partition + ", term="
				+ this.term + "]";
	}

}
