package io.github.dbleader.election;

import java.time.Duration;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.slf4j.LoggerFactory;

/**
 * Seeded schedules of faults over the election core's own classes ({@link Simulation}), every
 * invariant checked after every event. CI runs {@value #DEFAULT_SCHEDULES} schedules of a
 * minute of simulated time each; longer runs over other seed ranges are on demand:
 * {@code ./mvnw -pl leader-election-core -am test -Dtest=SimulationTests#schedules
 * -Dsimulation.first=1000001 -Dsimulation.schedules=100000 -Dsurefire.failIfNoSpecifiedTests=false}
 * (see docs/contributing/simulation.md). A failing schedule prints its seed, the command
 * that replays it ({@link #replay}) and the trace of its last events.
 */
class SimulationTests {

	static final int DEFAULT_SCHEDULES = 10_000;

	static final Duration SCHEDULE_LENGTH = Duration.ofMinutes(1);

	private static final Logger core = (Logger) LoggerFactory.getLogger("io.github.dbleader.election");

	private static Level level;

	@BeforeAll
	static void quiet() {
		// A schedule announces hundreds of changes of leadership; the trace keeps what matters.
		level = core.getLevel();
		core.setLevel(Level.OFF);
	}

	@AfterAll
	static void restore() {
		core.setLevel(level);
	}

	@Test
	void schedules() {
		long first = Long.getLong("simulation.first", 1);
		int count = Integer.getInteger("simulation.schedules", DEFAULT_SCHEDULES);
		long started = System.nanoTime();
		long events = 0;
		long grants = 0;
		long commits = 0;
		for (long seed = first; seed < first + count; seed++) {
			Simulation.Outcome outcome = Simulation.run(seed, SCHEDULE_LENGTH);
			events += outcome.events();
			grants += outcome.grants();
			commits += outcome.commits();
		}
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		System.out.printf("[simulation] %d schedules (seeds %d to %d), %s of simulated time each: 0 violations, "
				+ "%d events, %d grants, %d fenced commits, in %.1f s (%.2f ms a schedule)%n", count, first,
				first + count - 1, SCHEDULE_LENGTH, events, grants, commits, took.toMillis() / 1e3,
				took.toNanos() / 1e6 / count);
	}

	@Test
	@EnabledIfSystemProperty(named = "simulation.seed", matches = "-?\\d+")
	void replay() {
		core.setLevel(Level.INFO);
		try {
			Simulation.Outcome outcome = Simulation.run(Long.getLong("simulation.seed"), SCHEDULE_LENGTH);
			System.out.println("[simulation] " + outcome);
		}
		finally {
			core.setLevel(Level.OFF);
		}
	}

}
