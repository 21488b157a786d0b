package io.github.dbleader.autoconfigure.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.dbleader.autoconfigure.NodeState;
import io.github.dbleader.election.DatabaseFailureKind;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.LeaseSighting;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.aop.LeaderOnlyRun;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HealthIndicator} of one election. It never touches the database, so it answers
 * at once whatever the database does: it shows this node's belief and the lease as this
 * node's heartbeat last read it ({@link Election#lastSeenLease()}).
 * <p>
 * Being a follower is healthy: the indicator is UP while the node's heartbeat succeeds,
 * and also while it has failed for less than {@code lease - guard}; DOWN once the
 * database has not answered for longer than that ({@link Election#isDatabaseReachable()},
 * {@code error:
 * database unreachable}) or the heartbeat has failed for longer than that whatever the
 * reason ({@link Election#heartbeatFailure()}, e.g. {@code error: heartbeat failing
 * (permission denied)}); also DOWN while another running instance uses this node's id
 * ({@link Election#isNodeIdInUseElsewhere()}): this instance then takes no part, and
 * while the node waits for its database to answer for the first time
 * ({@link Election#isWaitingForDatabase()}). Details: this node's {@code role} (leader or
 * follower, at this instant), the {@code leader} and the {@code term} of the lease as
 * last read, how long ago ({@code leaseAge}), and while the heartbeat fails, for how long
 * ({@code databaseUnreachableFor}), the {@code heartbeatFailure} (its
 * {@link DatabaseFailureKind} in lower case) and the {@code heartbeatFailureCause}.
 * <p>
 * A {@code @LeaderOnly} run of the election that still runs although its
 * {@code maxRunTime} has passed ({@link LeaderOnlyRuns#runsPastMaxRunTime(String)}: the
 * job hangs while the heartbeat keeps the lease) makes the indicator OUT_OF_SERVICE,
 * unless it is DOWN, with a detail {@code runsPastMaxRunTime} (method, term, start, how
 * long it has run and its bound). Not DOWN: the node still leads safely, and its fenced
 * work commits only while it does.
 */
public class ElectionHealthIndicator implements HealthIndicator {

	private final Election election;

	private final @Nullable LeaderOnlyRuns leaderOnlyRuns;

	private final Clock clock;

	/**
	 * Create an indicator that does not look at {@code @LeaderOnly} runs.
	 * @param election the election
	 */
	public ElectionHealthIndicator(Election election) {
		this(election, null, Clock.systemUTC());
	}

	/**
	 * Create an indicator.
	 * @param election the election
	 * @param leaderOnlyRuns the record of the {@code @LeaderOnly} calls, or {@code null}
	 * @param clock the clock of the runs' times
	 */
	public ElectionHealthIndicator(Election election, @Nullable LeaderOnlyRuns leaderOnlyRuns, Clock clock) {
		this.election = election;
		this.leaderOnlyRuns = leaderOnlyRuns;
		this.clock = clock;
	}

	@Override
	public Health health() {
		Health.Builder health = nodeHealth(this.election);
		health.withDetail("role", this.election.isLeader() ? "leader" : "follower");
		LeaseSighting sighting = this.election.lastSeenLease().orElse(null);
		if (sighting != null) {
			LeaseState lease = sighting.lease();
			boolean expired = lease.expired() || !lease.databaseTime().plus(sighting.age()).isBefore(lease.expiresAt());
			health.withDetail("leader", (lease.leaderId() != null && !expired) ? lease.leaderId() : "none")
				.withDetail("term", lease.term())
				.withDetail("leaseAge", sighting.age().truncatedTo(ChronoUnit.MILLIS));
		}
		return withRunsPastMaxRunTime(withHeartbeatFailure(health, this.election)).build();
	}

	private Health.Builder withRunsPastMaxRunTime(Health.Builder health) {
		List<LeaderOnlyRun> late = (this.leaderOnlyRuns != null)
				? this.leaderOnlyRuns.runsPastMaxRunTime(this.election.name()) : List.of();
		if (late.isEmpty()) {
			return health;
		}
		if (NodeState.of(this.election) == null) {
			health.outOfService();
		}
		Instant now = this.clock.instant();
		return health.withDetail("runsPastMaxRunTime", late.stream().map((run) -> {
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("method", run.method());
			detail.put("term", run.term());
			detail.put("startedAt", run.startedAt());
			detail.put("runningFor", Duration.between(run.startedAt(), now).truncatedTo(ChronoUnit.MILLIS));
			detail.put("maxRunTime", run.maxRunTime());
			return detail;
		}).toList());
	}

	/**
	 * The status that this node's state decides for all of its elections alike (the
	 * database reachability, the heartbeat and the node id are the node's, not an
	 * election's).
	 * @param election any election of the node
	 * @return UP, or DOWN with an {@code error} detail
	 */
	static Health.Builder nodeHealth(Election election) {
		NodeState state = NodeState.of(election);
		if (state == null) {
			return Health.up();
		}
		return Health.down().withDetail("error", switch (state) {
			case WAITING_FOR_DATABASE -> "waiting for the database: the election has not started";
			case DATABASE_UNREACHABLE -> "database unreachable";
			case HEARTBEAT_FAILING -> "heartbeat failing ("
					+ election.heartbeatFailure().map((failure) -> failure.kind().description()).orElse("") + ")";
			case NODE_ID_IN_USE -> "node id '" + election.nodeId() + "' is in use by another running instance";
		});
	}

	/**
	 * Add how long and why the node's heartbeat fails, if it does.
	 * @param health the health so far
	 * @param election any election of the node
	 * @return the health
	 */
	static Health.Builder withHeartbeatFailure(Health.Builder health, Election election) {
		election.heartbeatFailure()
			.ifPresent((failure) -> health
				.withDetail("databaseUnreachableFor", failure.failingFor().truncatedTo(ChronoUnit.MILLIS))
				.withDetail("heartbeatFailure", failure.kind().name().toLowerCase(Locale.ROOT))
				.withDetail("heartbeatFailureCause", failure.cause()));
		return health;
	}

}
