package io.github.dbleader.election.partition;

import io.github.dbleader.election.RevocationReason;

/**
 * Callback for the partitions this node gains and loses. Invoked on the election's
 * notification thread, in order, never on the heartbeat thread; exceptions are logged and
 * ignored. A callback arrives after the fact: when {@link #partitionLost} runs,
 * {@link PartitionGroup#isOwner(int)} already returns {@code false}.
 */
public interface PartitionListener {

	/**
	 * This node now owns a partition.
	 * @param group group name
	 * @param partition the partition
	 * @param term the partition's fencing token for this ownership
	 */
	default void partitionGained(String group, int partition, long term) {
	}

	/**
	 * This node no longer owns a partition.
	 * @param group group name
	 * @param partition the partition
	 * @param term the term that ended
	 * @param reason why it ended ({@link RevocationReason#HANDED_OVER} when balancing
	 * moved it)
	 */
	default void partitionLost(String group, int partition, long term, RevocationReason reason) {
	}

}
