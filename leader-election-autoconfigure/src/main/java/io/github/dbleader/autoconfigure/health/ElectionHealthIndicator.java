package io.github.dbleader.autoconfigure.health;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.LeaseSighting;
import io.github.dbleader.election.LeaseState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HealthIndicator} of one election. It never touches the database, so it answers at
 * once whatever the database does: it shows this node's belief and the lease as this node's
 * heartbeat last read it ({@link Election#lastSeenLease()}).
 * <p>
 * Being a follower is healthy: the indicator is UP while the election's database answers
 * the heartbeat, and DOWN once it has been unreachable for longer than
 * {@code lease - guard} ({@link Election#isDatabaseReachable()}), and also DOWN while
 * another running instance uses this node's id ({@link Election#isNodeIdInUseElsewhere()}):
 * this instance then takes no part. Details: this node's {@code role} (leader or follower,
 * at this instant), the {@code leader} and the {@code term} of the lease as last read, how
 * long ago ({@code leaseAge}), and {@code databaseUnreachableFor} while the heartbeat fails.
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
		Health.Builder health = Health.up();
		if (!this.election.isDatabaseReachable()) {
			health = Health.down().withDetail("error", "database unreachable");
		}
		else if (this.election.isNodeIdInUseElsewhere()) {
			health = Health.down()
				.withDetail("error",
						"node id '" + this.election.nodeId() + "' is in use by another running instance");
		}
		health.withDetail("role", this.election.isLeader() ? "leader" : "follower");
		LeaseSighting sighting = this.election.lastSeenLease().orElse(null);
		if (sighting != null) {
			LeaseState lease = sighting.lease();
			boolean expired = lease.expired()
					|| !lease.databaseTime().plus(sighting.age()).isBefore(lease.expiresAt());
			health.withDetail("leader", (lease.leaderId() != null && !expired) ? lease.leaderId() : "none")
				.withDetail("term", lease.term())
				.withDetail("leaseAge", sighting.age().truncatedTo(ChronoUnit.MILLIS));
		}
		Duration unreachableFor = this.election.databaseUnreachableFor().orElse(null);
		if (unreachableFor != null) {
			health.withDetail("databaseUnreachableFor", unreachableFor.truncatedTo(ChronoUnit.MILLIS));
		}
		return health.build();
	}

}
