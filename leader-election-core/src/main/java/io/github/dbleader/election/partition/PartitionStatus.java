package io.github.dbleader.election.partition;

import org.jspecify.annotations.Nullable;

/**
 * One partition as this node last saw it.
 *
 * @param partition the partition
 * @param owner the node that holds its lease, or {@code null} if nobody does
 * @param term the term (fencing token) of the owner
 * @param target the node balancing wants to own it, or {@code null} if not known yet
 * @param pinnedTo the node it is pinned to, or {@code null}
 * @param handoverTo the node a hand-over under way goes to, or {@code null}
 */
public record PartitionStatus(int partition, @Nullable String owner, long term, @Nullable String target,
		@Nullable String pinnedTo, @Nullable String handoverTo) {

	/**
	 * Whether the partition is to move: it has a target other than its owner.
	 * @return {@code true} if a move is pending
	 */
	public boolean movePending() {
		return this.target != null && !this.target.equals(this.owner);
	}

}
