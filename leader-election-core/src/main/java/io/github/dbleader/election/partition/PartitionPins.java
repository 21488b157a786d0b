package io.github.dbleader.election.partition;

import java.util.Map;

/**
 * Where the pins of partition groups are kept, so that every node sees them: a pinned
 * partition goes to its node while that node is a live member of the group, whatever
 * balancing would choose. Every call is bounded by a statement timeout; an exception
 * means the outcome is unknown.
 */
public interface PartitionPins {

	/**
	 * Read the pins of a group, in one statement.
	 * @param group group name
	 * @return the pinned node by partition
	 */
	Map<Integer, String> pins(String group);

	/**
	 * Pin a partition to a node, replacing an earlier pin of that partition.
	 * @param group group name
	 * @param partition the partition
	 * @param nodeId the node that should own it
	 */
	void pin(String group, int partition, String nodeId);

	/**
	 * Remove the pin of a partition; balancing decides its owner again.
	 * @param group group name
	 * @param partition the partition
	 * @return whether it was pinned
	 */
	boolean unpin(String group, int partition);

}
