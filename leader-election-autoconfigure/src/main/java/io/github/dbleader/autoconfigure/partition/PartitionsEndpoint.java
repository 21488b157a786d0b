package io.github.dbleader.autoconfigure.partition;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.dbleader.autoconfigure.endpoint.DatabaseUnavailableException;
import io.github.dbleader.autoconfigure.endpoint.TimeBound;
import io.github.dbleader.autoconfigure.endpoint.UnknownTargetException;
import io.github.dbleader.election.UnknownCandidateException;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroupStatus;
import io.github.dbleader.election.partition.PartitionGroups;
import io.github.dbleader.election.partition.PartitionStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@link Endpoint @Endpoint} that shows the partition groups of this node and lets an
 * operator pin partitions:
 * <ul>
 * <li>read: every group ({@code GET /actuator/partitions}) or one ({@code GET
 * /actuator/partitions/{group}}): the members, how many partitions each node owns, owner,
 * term, target and pin of every partition, and the moves still pending. Reads never touch
 * the database, so they answer at once even when it hangs: they show the leases as this
 * node's heartbeat last read them and the members and pins as its last balancing step
 * read them ({@code age} says how long ago);
 * <li>write: pin a partition to a node ({@code POST /actuator/partitions/{group}} with
 * body {@code {"partition": 3, "nodeId": "..."}}): it is handed over to that node and
 * balancing leaves it there while the node is live;
 * <li>delete: remove the pin ({@code DELETE /actuator/partitions/{group}?partition=3}).
 * </ul>
 * A node that is not a live member, or a partition out of range, changes nothing and
 * fails with a message (HTTP 400). Writes wait for the database at most a timeout (the
 * election's statement timeout, {@link TimeBound}); one it does not answer in time fails
 * with {@link DatabaseUnavailableException} (HTTP 503), its outcome unknown. Writes need
 * {@code management.endpoint.partitions.access=unrestricted}.
 */
@Endpoint(id = "partitions", defaultAccess = Access.READ_ONLY)
public class PartitionsEndpoint implements AutoCloseable {

	private final PartitionGroups groups;

	private final TimeBound writes;

	/**
	 * Create the endpoint.
	 * @param groups the partition groups of this node
	 * @param timeout longest wait for the database when writing
	 */
	public PartitionsEndpoint(PartitionGroups groups, Duration timeout) {
		this.groups = groups;
		this.writes = new TimeBound("partitions-endpoint-write", 2, 16, timeout);
	}

	/**
	 * Describe every group of this node.
	 * @return the groups by name
	 */
	@ReadOperation
	public PartitionsDescriptor partitions() {
		Map<String, GroupDescriptor> described = new TreeMap<>();
		String nodeId = null;
		for (PartitionGroup group : this.groups.groups()) {
			nodeId = group.nodeId();
			described.put(group.name(), describe(group));
		}
		return new PartitionsDescriptor(nodeId, described);
	}

	/**
	 * Describe one group.
	 * @param group group name
	 * @return the group
	 * @throws UnknownTargetException if this node has no such group
	 */
	@ReadOperation
	public GroupDescriptor group(@Selector String group) {
		PartitionGroup found = this.groups.group(group);
		if (found == null) {
			throw new UnknownTargetException("This node has no partition group '" + group + "'; its groups are "
					+ partitions().groups().keySet());
		}
		return describe(found);
	}

	/**
	 * Pin a partition to a node.
	 * @param group group name
	 * @param partition the partition
	 * @param nodeId the node that should own it
	 * @return the group after the request: the hand-over is pending until the owner's
	 * next renewal
	 * @throws DatabaseUnavailableException if the database did not answer in time: the
	 * pin may still be made
	 */
	@WriteOperation
	public GroupDescriptor pin(@Selector String group, int partition, String nodeId) {
		PartitionGroup found = existing(group, partition);
		try {
			this.writes.write("Pin of partition " + partition + " of group '" + group + "' to '" + nodeId + "'", () -> {
				found.pin(partition, nodeId);
				return null;
			});
		}
		catch (UnknownCandidateException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(),
					"Node '" + nodeId + "' is not a live member of partition group '" + group + "'");
		}
		return describe(found);
	}

	/**
	 * Remove the pin of a partition.
	 * @param group group name
	 * @param partition the partition
	 * @return the group after the request
	 * @throws DatabaseUnavailableException if the database did not answer in time: the
	 * pin may still be removed
	 */
	@DeleteOperation
	public GroupDescriptor unpin(@Selector String group, int partition) {
		PartitionGroup found = existing(group, partition);
		this.writes.write("Unpin of partition " + partition + " of group '" + group + "'",
				() -> found.unpin(partition));
		return describe(found);
	}

	@Override
	public void close() {
		this.writes.close();
	}

	private PartitionGroup existing(String group, int partition) {
		PartitionGroup found = this.groups.group(group);
		if (found == null) {
			throw new InvalidEndpointRequestException("No partition group '" + group + "'",
					"This node has no partition group '" + group + "'");
		}
		if (partition < 0 || partition >= found.count()) {
			throw new InvalidEndpointRequestException("No partition " + partition,
					"Partition group '" + group + "' has partitions 0 to " + (found.count() - 1));
		}
		return found;
	}

	private static GroupDescriptor describe(PartitionGroup group) {
		PartitionGroupStatus status = group.status();
		List<PartitionDescriptor> partitions = status.partitions().stream().map(PartitionDescriptor::of).toList();
		List<MoveDescriptor> moves = status.pendingMoves()
			.stream()
			.map((partition) -> new MoveDescriptor(partition.partition(), partition.owner(), partition.target()))
			.toList();
		return new GroupDescriptor(group.count(), new LinkedHashMap<>(status.partitionsPerNode()), status.members(),
				partitions, moves, group.settings().settleTime(), status.age());
	}

	/**
	 * Description of this node's partition groups.
	 *
	 * @param nodeId this node's id, or {@code null} if it has no group
	 * @param groups the groups by name
	 */
	public record PartitionsDescriptor(@Nullable String nodeId,
			Map<String, GroupDescriptor> groups) implements OperationResponseBody {

	}

	/**
	 * Description of one group, as this node last saw it.
	 *
	 * @param count number of partitions
	 * @param partitionsPerNode how many partitions each node owns (live members that own
	 * none show 0), ordered by node id
	 * @param members the live members, ordered by node id
	 * @param partitions every partition, in order
	 * @param pendingMoves the partitions whose owner is not their target
	 * @param settleTime how long a new member waits before it receives partitions
	 * @param age how long ago the members and pins were read; {@code null} before the
	 * first balancing step
	 */
	public record GroupDescriptor(int count, Map<String, Integer> partitionsPerNode, List<String> members,
			List<PartitionDescriptor> partitions, List<MoveDescriptor> pendingMoves, Duration settleTime,
			@Nullable Duration age) implements OperationResponseBody {

	}

	/**
	 * Description of one partition.
	 *
	 * @param partition the partition
	 * @param owner the node holding its lease, or {@code null}
	 * @param term the owner's term (fencing token)
	 * @param target the node balancing wants to own it, or {@code null} if not known yet
	 * @param pinnedTo the node it is pinned to, or {@code null}
	 * @param handoverTo the node a hand-over under way goes to, or {@code null}
	 */
	public record PartitionDescriptor(int partition, @Nullable String owner, long term, @Nullable String target,
			@Nullable String pinnedTo, @Nullable String handoverTo) {

		static PartitionDescriptor of(PartitionStatus status) {
			return new PartitionDescriptor(status.partition(), status.owner(), status.term(), status.target(),
					status.pinnedTo(), status.handoverTo());
		}

	}

	/**
	 * A move still to happen.
	 *
	 * @param partition the partition
	 * @param from its owner, or {@code null} if nobody holds it
	 * @param to its target
	 */
	public record MoveDescriptor(int partition, @Nullable String from, @Nullable String to) {

	}

}
