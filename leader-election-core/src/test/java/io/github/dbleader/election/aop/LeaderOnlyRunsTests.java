package io.github.dbleader.election.aop;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.aop.LeaderOnlyInterceptor.Settings;
import io.github.dbleader.election.aop.LeaderOnlyRun.Outcome;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LeaderOnlyRuns} on a fake monotonic clock and a fixed wall clock. A
 * run here is the test's own code, on the test's thread: what a run sees while it runs is
 * asserted from inside it.
 */
class LeaderOnlyRunsTests {

	private static final Instant NOW = Instant.parse("2026-11-23T01:20:00Z");

	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	private final MonotonicClock clock = this.nanos::get;

	private final List<LeaderOnlyRun> ended = new ArrayList<>();

	private final List<Duration> durations = new ArrayList<>();

	/** Checks every hour: the tests call {@link LeaderOnlyRuns#check()} themselves. */
	private LeaderOnlyRuns runs = runs(3, null);

	@AfterEach
	void close() {
		this.runs.close();
	}

	private LeaderOnlyRuns runs(int historySize, @Nullable Duration defaultMaxRunTime) {
		return new LeaderOnlyRuns(historySize, defaultMaxRunTime, Duration.ofHours(1), this.clock,
				Clock.fixed(NOW, ZoneOffset.UTC), List.of((run, duration) -> {
					this.ended.add(run);
					this.durations.add(duration);
				}, (run, duration) -> {
					throw new IllegalStateException("a listener that fails");
				}));
	}

	private static Settings settings(String election, @Nullable Duration maxRunTime, boolean interruptOnLoss) {
		return new Settings(election, "Jobs.run", maxRunTime, interruptOnLoss);
	}

	private @Nullable Object run(Settings settings, LeaderOnlyRuns.Work work) throws Throwable {
		return this.runs.run(settings, "a", 7, () -> 7, work);
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	@Test
	void recordsEachOutcomeNewestFirstWithTheRunsUnderWayFirst() throws Throwable {
		Settings settings = settings("e", null, false);
		assertThat(run(settings, () -> {
			advance(Duration.ofMillis(250));
			assertThat(this.runs.recentRuns("e")).singleElement()
				.isEqualTo(new LeaderOnlyRun("e", "a", 7, "Jobs.run", NOW, null, Outcome.RUNNING, null));
			return "done";
		})).isEqualTo("done");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> run(settings, () -> {
			throw new IllegalStateException("boom");
		}));
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> run(settings, () -> {
			throw new RuntimeException(new NotLeaderException("e", "a", "leadership of term 7 ended"));
		}));
		this.runs.skipped(settings, "a");
		assertThat(this.runs.recentRuns("e")).extracting(LeaderOnlyRun::outcome)
			.containsExactly(Outcome.SKIPPED, Outcome.REFUSED_BY_FENCE, Outcome.FAILED);
		assertThat(this.runs.recentRuns("e").get(0).term()).isEqualTo(-1);
		assertThat(this.ended).extracting(LeaderOnlyRun::outcome)
			.containsExactly(Outcome.COMPLETED, Outcome.FAILED, Outcome.REFUSED_BY_FENCE);
		assertThat(this.ended.get(0).endedAt()).isEqualTo(NOW);
		assertThat(this.durations.get(0)).isEqualTo(Duration.ofMillis(250));
		assertThat(this.runs.recentRuns("other")).isEmpty();
	}

	@Test
	void keepsTheLastCallsOfEachElectionUpToTheHistorySize() throws Throwable {
		for (int i = 0; i < 5; i++) {
			run(settings("e", null, false), () -> null);
		}
		run(settings("f", null, false), () -> null);
		assertThat(this.runs.recentRuns("e")).hasSize(3);
		assertThat(this.runs.recentRuns("f")).hasSize(1);
		this.runs.close();
		this.runs = runs(0, null);
		run(settings("e", null, false), () -> {
			assertThat(this.runs.recentRuns("e")).hasSize(1);
			return null;
		});
		this.runs.skipped(settings("e", null, false), "a");
		assertThat(this.runs.recentRuns("e")).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> runs(-1, null));
	}

	@Test
	void callsOfAMethodSkippedOneAfterTheOtherAreOneEntryTheFirstOfThem() throws Throwable {
		Settings job = settings("e", null, false);
		Settings other = new Settings("e", "Jobs.other", null, false);
		this.runs.skipped(job, "a");
		advance(Duration.ofSeconds(1));
		this.runs.skipped(job, "a");
		assertThat(this.runs.recentRuns("e")).extracting(LeaderOnlyRun::outcome).containsExactly(Outcome.SKIPPED);
		this.runs.skipped(other, "a");
		this.runs.skipped(job, "a");
		assertThat(this.runs.recentRuns("e")).extracting(LeaderOnlyRun::method)
			.containsExactly("Jobs.run", "Jobs.other", "Jobs.run");
		this.runs.close();
		this.runs = runs(5, null);
		this.runs.skipped(job, "a");
		run(job, () -> null);
		this.runs.skipped(job, "a");
		this.runs.skipped(job, "a");
		assertThat(this.runs.recentRuns("e")).extracting(LeaderOnlyRun::outcome)
			.containsExactly(Outcome.SKIPPED, Outcome.COMPLETED, Outcome.SKIPPED);
	}

	@Test
	void aRunIsPastItsMaxRunTimeFromTheBoundOnUntilItEnds() throws Throwable {
		run(settings("e", Duration.ofSeconds(10), false), () -> {
			advance(Duration.ofSeconds(10));
			assertThat(this.runs.runsPastMaxRunTime("e")).isEmpty();
			advance(Duration.ofNanos(1));
			assertThat(this.runs.runsPastMaxRunTime("e")).singleElement()
				.satisfies((run) -> assertThat(run.maxRunTime()).isEqualTo(Duration.ofSeconds(10)));
			assertThat(this.runs.runsPastMaxRunTime("other")).isEmpty();
			this.runs.check();
			return null;
		});
		assertThat(this.runs.runsPastMaxRunTime("e")).isEmpty();
		run(settings("e", null, false), () -> {
			advance(Duration.ofDays(1));
			assertThat(this.runs.runsPastMaxRunTime("e")).isEmpty();
			return null;
		});
	}

	@Test
	void theDefaultMaxRunTimeBoundsTheMethodsThatSetNone() throws Throwable {
		this.runs.close();
		this.runs = runs(3, Duration.ofMinutes(1));
		run(settings("e", null, false), () -> {
			advance(Duration.ofMinutes(1).plusMillis(1));
			assertThat(this.runs.runsPastMaxRunTime("e")).extracting(LeaderOnlyRun::maxRunTime)
				.containsExactly(Duration.ofMinutes(1));
			return null;
		});
		run(settings("e", Duration.ofMinutes(2), false), () -> {
			advance(Duration.ofMinutes(1).plusMillis(1));
			assertThat(this.runs.runsPastMaxRunTime("e")).isEmpty();
			return null;
		});
	}

	@Test
	void aCheckInterruptsOnlyTheRunsThatAskedForItOnceTheirLeadershipEnded() throws Throwable {
		AtomicLong term = new AtomicLong(7);
		this.runs.run(settings("e", null, true), "a", 7, term::get, () -> {
			this.runs.check();
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
			term.set(-1);
			this.runs.check();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
			return null;
		});
		// The interrupt was for the run: the thread's next task does not inherit it.
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		this.runs.run(settings("e", null, false), "a", 7, () -> -1, () -> {
			this.runs.check();
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
			return null;
		});
		// A new term is a loss too: the run's leadership ended in between.
		this.runs.run(settings("e", null, true), "a", 7, () -> 9, () -> {
			this.runs.check();
			assertThat(Thread.interrupted()).isTrue();
			return null;
		});
	}

	@Test
	void theChecksOfItsOwnThreadInterruptARunWithinACheckInterval() {
		this.runs.close();
		this.runs = new LeaderOnlyRuns(3, null, Duration.ofMillis(20), this.clock, Clock.systemUTC(), List.of());
		AtomicLong term = new AtomicLong(7);
		assertThatExceptionOfType(InterruptedException.class)
			.isThrownBy(() -> this.runs.run(settings("e", null, true), "a", 7, term::get, () -> {
				term.set(-1);
				// Bounded: without the interrupt, the latch's timeout ends the run and
				// the test fails.
				return new CountDownLatch(1).await(5, TimeUnit.SECONDS);
			}));
		assertThat(this.runs.recentRuns("e")).extracting(LeaderOnlyRun::outcome).containsExactly(Outcome.FAILED);
	}

}
