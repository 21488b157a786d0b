package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The cluster-lock mode under faults: three processes of the sample application run its
 * {@code @ClusterLock} job (released after each run) on the same cron schedule, every
 * second, on the real MySQL-protocol database; each run holds the lock
 * {@code sample-report} for about {@value #RUN_MILLIS} ms and records itself in a
 * transaction fenced by its lock ({@code fault_lock_job_runs}). atMostFor is
 * {@value #AT_MOST_FOR_MILLIS} ms, atLeastFor {@value #AT_LEAST_FOR_MILLIS} ms. The
 * holder is hit in the middle of a run (seen in the lock's row: taken, not yet released)
 * with {@code kill -9}, a SIGSTOP longer than atMostFor, and SIGTERM. Checked from the
 * database, in every scenario:
 * <ul>
 * <li>no two runs overlap, each run has a term of its own and the terms grow with the
 * starts;
 * <li>every trigger ran at most once: two runs start at least atLeastFor apart (two runs
 * of one trigger would start within a run's length of each other);
 * <li>another node runs a later trigger within atMostFor + a period + 1 s of the fault;
 * <li>after the pause, the paused run's fenced write did not commit (3 trials).
 * </ul>
 * Results go to the fault report ({@code target/fault-report.md}) with the election's
 * scenarios.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ForkUse(ForkUse.Mode.SHARED)
class LockScenariosIntegrationTests {

	static final long AT_MOST_FOR_MILLIS = 3000;

	static final long AT_LEAST_FOR_MILLIS = 500;

	static final long RUN_MILLIS = 400;

	/** The cron period: every second, on every node's clock. */
	private static final long PERIOD = 1000;

	/** Slack for scheduling, round trips and a loaded machine. */
	private static final long SLACK = 1000;

	private static final String LOCK_KEY = "lock:sample-report";

	private static final List<String> LOCK_JOB = List.of("--sample.lock-job-cron=* * * * * *",
			"--sample.lock-job-at-most-for=" + AT_MOST_FOR_MILLIS + "ms",
			"--sample.lock-job-at-least-for=" + AT_LEAST_FOR_MILLIS + "ms",
			"--sample.lock-job-duration=" + RUN_MILLIS + "ms");

	private static FaultDatabase database;

	private static Cluster cluster;

	@BeforeAll
	static void startCluster() {
		database = FaultDatabase.forThisFork();
		cluster = new Cluster(database, LOCK_JOB);
		cluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	/**
	 * L1. No fault for 20 s: each trigger runs once, on one node, and the runs spread.
	 */
	@Test
	@Order(1)
	void eachTriggerRunsOnceOnOneNodeAndTheRunsSpread() throws Exception {
		long from = awaitSteady();
		Thread.sleep(20_000);
		List<JobRuns.Run> runs = runsSince(from);
		Map<String, Long> perNode = runs.stream()
			.collect(Collectors.groupingBy(JobRuns.Run::nodeId, TreeMap::new, Collectors.counting()));
		report("L1. cluster-lock job, no fault (20 s)", "none", runs, "runs per node " + perNode);
		assertThat(runs).as("runs in 20 s, one per second").hasSizeGreaterThanOrEqualTo(15);
		assertThat(perNode).as("nodes that ran the job").hasSizeGreaterThan(1);
	}

	/**
	 * L2. {@code kill -9} of the holder mid-run: another node runs within atMostFor + a
	 * period.
	 */
	@Test
	@Order(2)
	void killedHolderMidRunIsReplacedAfterAtMostFor() throws Exception {
		boolean committed = holderStoppedMidRun("L2. kill -9 of the lock holder mid-run", SampleNode::kill);
		assertThat(committed).as("the killed run committed").isFalse();
	}

	/**
	 * L3. SIGSTOP of the holder mid-run for longer than atMostFor, three times: another
	 * node runs a trigger while the holder is paused, and the paused run's fenced write
	 * never commits.
	 */
	@Test
	@Order(3)
	void holderPausedMidRunLongerThanAtMostForCommitsNothing() throws Exception {
		List<String> trials = new ArrayList<>();
		int staleCommits = 0;
		long from = awaitSteady();
		for (int trial = 1; trial <= 3; trial++) {
			awaitSteady();
			LockRow held = awaitMidRun();
			SampleNode holder = node(held.holder());
			long pausedAt = database.now();
			holder.pause();
			Thread.sleep(AT_MOST_FOR_MILLIS + 2000);
			Optional<JobRuns.Run> duringPause = runsSince(pausedAt).stream()
				.filter((run) -> run.startedAt() >= pausedAt && !run.nodeId().equals(held.holder()))
				.findFirst();
			long resumedAt = database.now();
			holder.resume();
			// The paused run wakes up, works its last few hundred milliseconds and tries
			// to commit.
			Thread.sleep(RUN_MILLIS + 2000);
			boolean committed = runsSince(from).stream().anyMatch((run) -> run.term() == held.term());
			staleCommits += committed ? 1 : 0;
			trials.add("trial " + trial + ": " + held.holder() + " paused " + (pausedAt - held.acquiredAt())
					+ " ms into its run for " + (resumedAt - pausedAt) + " ms; next run "
					+ duringPause
						.map((run) -> run.nodeId() + " " + (run.startedAt() - pausedAt) + " ms after the pause")
						.orElse("none during the pause")
					+ "; paused run committed: " + committed);
			assertThat(duringPause).as("a run of another node during the pause, trial %d", trial).isPresent();
			assertThat(committed).as("the paused run's fenced write committed, trial %d", trial).isFalse();
		}
		List<JobRuns.Run> runs = runsSince(from);
		report("L3. SIGSTOP of the lock holder mid-run, " + (AT_MOST_FOR_MILLIS + 2000) + " ms > atMostFor (3 trials)",
				"see details", runs, "stale commits " + staleCommits + "/3; " + String.join("; ", trials));
	}

	/**
	 * L4. SIGTERM of the holder mid-run: the run ends or is dropped, and another node
	 * goes on.
	 */
	@Test
	@Order(4)
	void gracefulStopOfTheHolderMidRun() throws Exception {
		holderStoppedMidRun("L4. SIGTERM of the lock holder mid-run", SampleNode::terminate);
	}

	/**
	 * Stop the holder of the lock in the middle of a run, wait for a run of another node
	 * within atMostFor + a period + 1 s, and check the runs.
	 * @return whether the interrupted run committed
	 */
	private static boolean holderStoppedMidRun(String scenario, Consumer<SampleNode> stop) throws Exception {
		long from = awaitSteady();
		LockRow held = awaitMidRun();
		long stoppedAt = database.now();
		stop.accept(node(held.holder()));
		JobRuns.Run next = awaitRunElsewhere(held.holder(), stoppedAt, AT_MOST_FOR_MILLIS + PERIOD + SLACK);
		long recovery = next.startedAt() - stoppedAt;
		Thread.sleep(2000);
		List<JobRuns.Run> runs = runsSince(from);
		boolean committed = runs.stream().anyMatch((run) -> run.term() == held.term());
		report(scenario,
				recovery + " ms (" + next.nodeId() + ", lock taken " + (stoppedAt - held.acquiredAt()) + " ms before)",
				runs, "the interrupted run committed: " + committed);
		assertThat(recovery).as("another node runs within atMostFor + a period + 1 s of the fault")
			.isLessThanOrEqualTo(AT_MOST_FOR_MILLIS + PERIOD + SLACK);
		return committed;
	}

	/**
	 * Wait for a steady cluster whose lock job runs.
	 * @return database time from which the scenario's runs count
	 */
	private static long awaitSteady() {
		cluster.awaitSteady(3);
		long now = database.now();
		await("a run of the lock job").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> runsSince(now).stream().anyMatch((run) -> run.startedAt() >= now));
		return now;
	}

	/**
	 * Wait until a live node holds the lock in the middle of a run: taken, not released
	 * (held until atMostFor after its acquisition), taken 80 to 200 ms ago.
	 */
	private static LockRow awaitMidRun() {
		LockRow[] found = new LockRow[1];
		await("the lock held mid-run").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() -> {
			LockRow row = lockRow();
			long age = row.now() - row.acquiredAt();
			boolean midRun = row.holder() != null && row.expiresAt() - row.acquiredAt() == AT_MOST_FOR_MILLIS
					&& age >= 80 && age <= 200
					&& cluster.live().stream().anyMatch((node) -> node.id().equals(row.holder()) && !node.isPaused());
			found[0] = row;
			return midRun;
		});
		return found[0];
	}

	private static JobRuns.Run awaitRunElsewhere(String holder, long fromDbMillis, long boundMillis) {
		JobRuns.Run[] found = new JobRuns.Run[1];
		await("a run of a node other than " + holder).atMost(Duration.ofMillis(boundMillis + 5000))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				Optional<JobRuns.Run> run = runsSince(fromDbMillis).stream()
					.filter((candidate) -> candidate.startedAt() >= fromDbMillis && !candidate.nodeId().equals(holder))
					.findFirst();
				run.ifPresent((value) -> found[0] = value);
				return run.isPresent();
			});
		return found[0];
	}

	private static List<JobRuns.Run> runsSince(long fromDbMillis) {
		return JobRuns.since(database, FaultDatabase.LOCK_JOB_RUNS_TABLE, fromDbMillis);
	}

	private static SampleNode node(String id) {
		return cluster.live().stream().filter((node) -> node.id().equals(id)).findFirst().orElseThrow();
	}

	/**
	 * Check the properties every scenario must have, add its line to the report, and fail
	 * if one does not hold.
	 */
	private static void report(String scenario, String recovery, List<JobRuns.Run> runs, String details) {
		List<JobRuns.Overlap> overlaps = JobRuns.overlaps(runs);
		List<String> violations = new ArrayList<>();
		if (!overlaps.isEmpty()) {
			violations.add("overlapping runs " + overlaps);
		}
		Map<Long, Long> perTerm = runs.stream()
			.collect(Collectors.groupingBy(JobRuns.Run::term, Collectors.counting()));
		perTerm.forEach((term, count) -> {
			if (count > 1) {
				violations.add(count + " runs of term " + term);
			}
		});
		for (int i = 1; i < runs.size(); i++) {
			JobRuns.Run previous = runs.get(i - 1);
			JobRuns.Run next = runs.get(i);
			if (next.startedAt() - previous.startedAt() < AT_LEAST_FOR_MILLIS) {
				violations.add("two runs of one trigger? " + previous + " and " + next);
			}
			if (next.term() <= previous.term()) {
				violations.add("terms out of order: " + previous + " then " + next);
			}
		}
		String verdict = violations.isEmpty() ? "pass" : "FAIL: " + String.join("; ", violations);
		FaultReport.add(new FaultReport.Entry(scenario, verdict, recovery,
				overlaps.stream().mapToLong(JobRuns.Overlap::millis).sum(), 0, 0, runs.size() + " runs; " + details));
		assertThat(violations).as(scenario).isEmpty();
	}

	private static LockRow lockRow() throws SQLException {
		try (Connection connection = database.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT leader_id, term, acquired_at, expires_at, " + database.nowMillis()
							+ " FROM " + FaultDatabase.LEASE_TABLE + " WHERE election_name = ?")) {
			statement.setString(1, LOCK_KEY);
			try (ResultSet result = statement.executeQuery()) {
				if (!result.next()) {
					return new LockRow(null, 0, 0, 0, 0);
				}
				return new LockRow(result.getString(1), result.getLong(2), result.getLong(3), result.getLong(4),
						result.getLong(5));
			}
		}
	}

	/**
	 * The lock's row.
	 *
	 * @param holder the node that took it last
	 * @param term its term
	 * @param acquiredAt when it was taken (database clock)
	 * @param expiresAt until when it is held
	 * @param now the database clock at the read
	 */
	private record LockRow(String holder, long term, long acquiredAt, long expiresAt, long now) {
	}

}
