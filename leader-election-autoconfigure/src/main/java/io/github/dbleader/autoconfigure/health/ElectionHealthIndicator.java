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
 * this instance then takes no part, and DOWN while the node waits for its database to
 * answer for the first time ({@link Election#isWaitingForDatabase()}). Details: this node's {@code role} (leader or follower,
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
		Health.Builder health = nodeHealth(this.election);
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
		return withUnreachableFor(health, this.election).build();
	}

	/**
	 * The status that this node's state decides for all of its elections alike (the database
	 * reachability and the node id are the node's, not an election's).
	 * @param election any election of the node
	 * @return UP, or DOWN with an {@code error} detail
	 */
	static Health.Builder nodeHealth(Election election) {
		if (election.isWaitingForDatabase()) {
			return Health.down().withDetail("error", "waiting for the database: the election has not started");
		}
		if (!election.isDatabaseReachable()) {
			return Health.down().withDetail("error", "database unreachable");
		}
		if (election.isNodeIdInUseElsewhere()) {
			return Health.down()
				.withDetail("error", "node id '" + election.nodeId() + "' is in use by another running instance");
		}
		return Health.up();
	}

	static Health.Builder withUnreachableFor(Health.Builder health, Election election) {
		election.databaseUnreachableFor()
			.ifPresent((unreachableFor) -> health.withDetail("databaseUnreachableFor",
					unreachableFor.truncatedTo(ChronoUnit.MILLIS)));
		return health;
	}

}
