package io.github.dbleader.autoconfigure.health;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.LeaderInfo;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HealthIndicator} of one election. Being a follower is healthy: the indicator is
 * UP while the election's database answers, and DOWN once it has been unreachable for
 * longer than {@code lease - guard} ({@link Election#isDatabaseReachable()}) or does not
 * answer the read of the lease, and also DOWN while another running instance uses this
 * node's id ({@link Election#isNodeIdInUseElsewhere()}): this instance then takes no part.
 * Details: this node's {@code role} (leader or follower, at this instant), the
 * {@code leader} and the {@code term} the database records.
 */
public class ElectionHealthIndicator implements HealthIndicator {

	private final Election election;

	/**
	 * Create an indicator.
	 * @param election the election
	 */
	public ElectionHealthIndicator(Election election) {
		this.election = election;
	}

	@Override
	public Health health() {
		String role = this.election.isLeader() ? "leader" : "follower";
		if (!this.election.isDatabaseReachable()) {
			return Health.down().withDetail("role", role).withDetail("error", "database unreachable").build();
		}
		if (this.election.isNodeIdInUseElsewhere()) {
			return Health.down()
				.withDetail("role", role)
				.withDetail("error", "node id '" + this.election.nodeId() + "' is in use by another running instance")
				.build();
		}
		try {
			LeaderInfo info = this.election.leaderInfo();
			return Health.up()
				.withDetail("role", role)
				.withDetail("leader", (info.leaderId() != null) ? info.leaderId() : "none")
				.withDetail("term", info.term())
				.build();
		}
		catch (RuntimeException ex) {
			return Health.down(ex).withDetail("role", role).build();
		}
	}

}
