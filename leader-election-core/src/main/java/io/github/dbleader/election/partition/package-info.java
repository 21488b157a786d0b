/**
 * Partition groups: a named group of partitions, each an ordinary election of the node's
 * {@link io.github.dbleader.election.ElectionService}, spread evenly over the live nodes
 * and moved between them only by the election's safe hand-over.
 *
 * <p>
 * {@link io.github.dbleader.election.partition.PartitionAssignment} is the pure rule
 * (balanced, sticky, deterministic);
 * {@link io.github.dbleader.election.partition.PartitionGroup} applies it on one node.
 */
@NullMarked
package io.github.dbleader.election.partition;

import org.jspecify.annotations.NullMarked;
