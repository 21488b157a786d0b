package io.github.dbleader.autoconfigure.health;

import java.util.List;
import java.util.TreeSet;

import io.github.dbleader.election.Election;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HealthIndicator} of one partition group on this node: one entry for all of the
 * group's partition elections, so that a group of hundreds of partitions does not add
 * hundreds of entries. Like {@link ElectionHealthIndicator} it never touches the
 * database. Owning no partition is healthy: DOWN only when
 * {@link ElectionHealthIndicator} is (the heartbeat has failed for longer than
 * {@code lease - guard}, another running instance uses this node's id...). Details: the
 * {@code partitions} in the group and those this node {@code owns}, and while the
 * heartbeat fails the same details of the failure as {@link ElectionHealthIndicator}'s.
 */
public class PartitionGroupHealthIndicator implements HealthIndicator {

	private final List<Election> partitions;

	/**
	 * Create an indicator.
	 * @param partitions the elections of the group's partitions on this node
	 */
	public PartitionGroupHealthIndicator(List<Election> partitions) {
		this.partitions = List.copyOf(partitions);
	}

	@Override
	public Health health() {
		Election any = this.partitions.get(0);
		TreeSet<Integer> owned = new TreeSet<>();
		for (Election election : this.partitions) {
			if (election.isLeader()) {
				owned.add(Integer.parseInt(election.name().substring(election.name().lastIndexOf(':') + 1)));
			}
		}
		Health.Builder health = ElectionHealthIndicator.nodeHealth(any)
			.withDetail("partitions", this.partitions.size())
			.withDetail("owns", owned);
		return ElectionHealthIndicator.withHeartbeatFailure(health, any).build();
	}

}
