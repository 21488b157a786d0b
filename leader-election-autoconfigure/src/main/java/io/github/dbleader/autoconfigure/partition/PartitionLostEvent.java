package io.github.dbleader.autoconfigure.partition;

import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.partition.PartitionGroups;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this node no longer owns a partition of a group; by then
 * {@code PartitionGroup.isOwner(partition)} is already {@code false}. Published on the
 * election's notification thread, never on the heartbeat thread.
 */
public class PartitionLostEvent extends ApplicationEvent {

	private final String group;

	private final int partition;

	private final long term;

	private final RevocationReason reason;

	/**
	 * Create an event.
	 * @param source the registry of the node's groups
	 * @param group group name
	 * @param partition the partition
	 * @param term the term that ended
	 * @param reason why it ended ({@link RevocationReason#HANDED_OVER} when balancing moved it)
	 */
	public PartitionLostEvent(PartitionGroups source, String group, int partition, long term,
			RevocationReason reason) {
		super(source);
		this.group = group;
		this.partition = partition;
		this.term = term;
		this.reason = reason;
	}

	/** @return the group name */
	public String getGroup() {
		return this.group;
	}

	/** @return the partition */
	public int getPartition() {
		return this.partition;
	}

	/** @return the term that ended */
	public long getTerm() {
		return this.term;
	}

	/** @return why it ended */
	public RevocationReason getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[group=" + this.group + ", partition=" + this.partition + ", term="
				+ this.term + ", reason=" + this.reason + "]";
	}

}
