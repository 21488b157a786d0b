package io.github.dbleader.autoconfigure.health;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockRun;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HealthIndicator} of this node's cluster locks. It never touches the database.
 * <p>
 * It notes the runs on this node that still run although their lock's {@code atMostFor}
 * has passed (on this node's monotonic clock): the database may have let another node
 * take the lock, and their fenced work is refused. Such a run is a detail
 * ({@code runsPastAtMostFor}: lock, term, start and how long it has run), not DOWN:
 * nothing is unsafe (the fence keeps the late run from committing), and a failing probe
 * that restarts the node would kill the run half-way through whatever it does outside the
 * fence. Alert on the detail, or on the gauge {@code leader.election.lock.overdue}, and
 * raise {@code atMostFor} or shorten the run.
 */
public class ClusterLocksHealthIndicator implements HealthIndicator {

	private final Supplier<ClusterLocks> locks;

	private final Clock clock;

	/**
	 * Create an indicator.
	 * @param locks supplies the cluster locks, lazily at the first check
	 * @param clock the clock of the runs' times
	 */
	public ClusterLocksHealthIndicator(Supplier<ClusterLocks> locks, Clock clock) {
		this.locks = locks;
		this.clock = clock;
	}

	@Override
	public Health health() {
		List<LockRun> late = this.locks.get().runsPastAtMostFor();
		Health.Builder health = Health.up();
		if (!late.isEmpty()) {
			Instant now = this.clock.instant();
			health.withDetail("runsPastAtMostFor", late.stream().map((run) -> {
				Map<String, Object> detail = new LinkedHashMap<>();
				detail.put("lock", run.name());
				detail.put("term", run.term());
				detail.put("startedAt", run.startedAt());
				detail.put("runningFor", run.duration(now).truncatedTo(ChronoUnit.MILLIS));
				return detail;
			}).toList());
		}
		return health.build();
	}

}
