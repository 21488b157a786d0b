/**
 * Auto-configuration of partition groups: groups declared under
 * {@code leader-election.partitions.<group>}, the {@code PartitionGroups} registry,
 * application events for gained and lost partitions, and the {@code partitions} actuator
 * endpoint.
 */
@NullMarked
package io.github.dbleader.autoconfigure.partition;

import org.jspecify.annotations.NullMarked;
