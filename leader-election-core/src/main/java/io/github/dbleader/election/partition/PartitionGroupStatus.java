package io.github.dbleader.election.partition;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * A partition group as this node last saw it, without asking the database: the leases as
 * its heartbeat last read them and the members and pins as its last balancing step read
 * them.
 *
 * @param group group name
 * @param nodeId this node
 * @param members the live members at the last balancing step, ordered by node id
 * @param partitions every partition, in order
 * @param age how long ago the last balancing step read the members, or {@code null} if it
 * never did
 */
public record PartitionGroupStatus(String group, String nodeId, List<String> members, List<PartitionStatus> partitions,
		@Nullable Duration age) {

	/**
	 * How many partitions each node owns; members that own none are listed with 0.
	 * @return owned partitions by node id, ordered by node id
	 */
	public Map<String, Integer> partitionsPerNode() {
		Map<String, Integer> count = new TreeMap<>();
		this.members.forEach((member) -> count.put(member, 0));
		for (PartitionStatus partition : this.partitions) {
			if (partition.owner() != null) {
				count.merge(partition.owner(), 1, Integer::sum);
			}
		}
		return count;
	}

	/**
	 * The partitions that are to move.
	 * @return the partitions whose target is not their owner
	 */
	public List<PartitionStatus> pendingMoves() {
		return this.partitions.stream().filter(PartitionStatus::movePending).toList();
	}

}
