package io.github.dbleader.autoconfigure.metrics;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockRunListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * The meters of the cluster locks, each tagged with {@code lock} (the lock's name):
 * <ul>
 * <li>{@code leader.election.lock.acquisitions}: counter of the times this node took the
 * lock;
 * <li>{@code leader.election.lock.skips}: counter of the times this node tried the lock
 * and did not get it (another node or another run here held it, or the database failed),
 * so that its run was skipped;
 * <li>{@code leader.election.lock.held}: timer of how long this node used an acquisition,
 * from just before the statement that took the lock until it released the lock or, for a
 * lock left to expire, until its run ended;
 * <li>{@code leader.election.lock.overdue}: gauge, how many runs of the lock on this node
 * still run although its {@code atMostFor} has passed on this node's monotonic clock
 * ({@link ClusterLocks#runsPastAtMostFor()}): the database may have let another node take
 * the lock, and their fenced work is refused. {@code held} records such a run only when
 * it ends, this gauge while it overruns. It exists from the lock's first acquisition
 * here.
 * </ul>
 * Receives the events as a {@link LockRunListener}, on the thread of the run; a meter
 * exists once its first event happened.
 */
public class LockMetrics implements MeterBinder, LockRunListener {

	private static final String PREFIX = "leader.election.lock.";

	private final Supplier<@Nullable ClusterLocks> locks;

	private final Set<String> gauged = ConcurrentHashMap.newKeySet();

	private volatile @Nullable MeterRegistry registry;

	/**
	 * Create the meters, without {@code leader.election.lock.overdue}.
	 */
	public LockMetrics() {
		this(() -> null);
	}

	/**
	 * Create the meters.
	 * @param locks supplies the cluster locks whose overdue runs the
	 * {@code leader.election.lock.overdue} gauges count, lazily (the locks are themselves
	 * told about runs through this listener); may supply {@code null} for none
	 */
	public LockMetrics(Supplier<@Nullable ClusterLocks> locks) {
		this.locks = locks;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void acquired(String name, long term) {
		count("acquisitions", "Times this node took the lock", name);
		MeterRegistry registry = this.registry;
		if (registry != null && this.gauged.add(name)) {
			Gauge.builder(PREFIX + "overdue", this, (metrics) -> metrics.overdue(name))
				.description("Runs of the lock on this node still running although its atMostFor has passed")
				.tag("lock", name)
				.strongReference(true)
				.register(registry);
		}
	}

	private long overdue(String name) {
		ClusterLocks locks = this.locks.get();
		if (locks == null) {
			return 0;
		}
		return locks.runsPastAtMostFor().stream().filter((run) -> name.equals(run.name())).count();
	}

	@Override
	public void skipped(String name) {
		count("skips", "Times this node did not get the lock and skipped the run", name);
	}

	@Override
	public void ended(String name, long term, Duration heldFor) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			Timer.builder(PREFIX + "held")
				.description("How long this node used an acquisition of the lock, until release or the end of its run")
				.tag("lock", name)
				.register(registry)
				.record(heldFor);
		}
	}

	private void count(String meter, String description, String name) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			Counter.builder(PREFIX + meter).description(description).tag("lock", name).register(registry).increment();
		}
	}

}
