package io.github.dbleader.autoconfigure.metrics;

import java.time.Duration;

import io.github.dbleader.election.lock.LockRunListener;
import io.micrometer.core.instrument.Counter;
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
 * lock left to expire, until its run ended.
 * </ul>
 * Receives the events as a {@link LockRunListener}, on the thread of the run; a meter
 * exists once its first event happened.
 */
public class LockMetrics implements MeterBinder, LockRunListener {

	private static final String PREFIX = "leader.election.lock.";

	private volatile @Nullable MeterRegistry registry;

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void acquired(String name, long term) {
		count("acquisitions", "Times this node took the lock", name);
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
