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
 * The cluster-lock job of the sample with its lock kept alive ({@code maxFor}), three
 * processes, every node firing the trigger every second while each run lasts three times
 * {@code atMostFor}:
 * <ul>
 * <li>K1: runs never overlap, each keeps its lock to its end and commits its fenced
 * write, and no node's heartbeat fails;
 * <li>K2: {@code kill -9} of the holder in the middle of a run: another node runs within
 * a lease, a renew interval and a second (the trigger's period) of the kill, not after
 * {@code maxFor}.
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ForkUse(ForkUse.Mode.SHARED)
class KeptAliveLockScenariosIntegrationTests {

	private static final long AT_MOST_FOR_MILLIS = 2000;

	private static final long RUN_MILLIS = 3 * AT_MOST_FOR_MILLIS;

	private static final long MAX_FOR_MILLIS = 60_000;

	private static final String LOCK_KEY = "lock:sample-report";

	private static final List<String> LOCK_JOB = List.of("--sample.lock-job-cron=* * * * * *",
			"--sample.lock-job-at-most-for=" + AT_MOST_FOR_MILLIS + "ms", "--sample.lock-job-at-least-for=500ms",
			"--sample.lock-job-duration=" + RUN_MILLIS + "ms", "--sample.lock-job-max-for=" + MAX_FOR_MILLIS + "ms",
			"--sample.lock-job-work-in-fence=false");

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

	/** K1. Runs of 3 x atMostFor keep their lock while the others keep trying. */
	@Test
	@Order(1)
	void runsLongerThanAtMostForKeepTheirLock() throws Exception {
		long from = awaitRun();
		Map<String, double[]> before = new TreeMap<>();
		for (SampleNode node : cluster.live()) {
			before.put(node.id(), new double[] { node.meter("leader.election.heartbeat", "outcome:failure") });
		}
		Thread.sleep(2 * RUN_MILLIS + 2000);
		List<JobRuns.Run> runs = runsSince(from);
		List<String> violations = new ArrayList<>();
		if (runs.size() < 2) {
			violations.add("only " + runs.size() + " runs");
		}
		if (!JobRuns.overlaps(runs).isEmpty()) {
			violations.add("overlapping runs " + JobRuns.overlaps(runs));
		}
		runs.stream()
			.filter((run) -> run.finishedAt() - run.startedAt() < RUN_MILLIS)
			.forEach((run) -> violations.add("a run shorter than " + RUN_MILLIS + " ms: " + run));
		Map<Long, Long> perTerm = runs.stream()
			.collect(Collectors.groupingBy(JobRuns.Run::term, Collectors.counting()));
		perTerm.forEach((term, count) -> {
			if (count > 1) {
				violations.add(count + " runs of term " + term);
			}
		});
		for (SampleNode node : cluster.live()) {
			double failed = node.meter("leader.election.heartbeat", "outcome:failure") - before.get(node.id())[0];
			if (failed > 0) {
				violations.add(node.id() + ": " + (long) failed + " failed heartbeat rounds");
			}
		}
		report("K1. kept-alive runs of 3 x atMostFor (" + RUN_MILLIS + " ms)", "none", runs, violations);
	}

	/**
	 * K2. kill -9 of the holder mid-run: the lock is free after a lease, not after
	 * maxFor.
	 */
	@Test
	@Order(2)
	void killedHolderMidRunIsReplacedAfterALease() throws Exception {
		long from = awaitRun();
		String holder = awaitMidRun();
		long killedAt = database.now();
		cluster.live().stream().filter((node) -> node.id().equals(holder)).findFirst().orElseThrow().kill();
		long bound = SampleNode.LEASE.plus(SampleNode.RENEW).plusSeconds(1).toMillis();
		JobRuns.Run[] next = new JobRuns.Run[1];
		// A run is recorded when it ends: RUN_MILLIS after its start.
		await("a run of another node").atMost(Duration.ofMillis(bound + RUN_MILLIS + 10_000))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				Optional<JobRuns.Run> run = runsSince(killedAt).stream()
					.filter((candidate) -> candidate.startedAt() >= killedAt && !candidate.nodeId().equals(holder))
					.findFirst();
				run.ifPresent((found) -> next[0] = found);
				return run.isPresent();
			});
		long recovery = next[0].startedAt() - killedAt;
		List<String> violations = new ArrayList<>();
		if (recovery > bound) {
			violations.add("next run " + recovery + " ms after the kill, over L + R + 1 s = " + bound + " ms");
		}
		List<JobRuns.Run> runs = runsSince(from);
		if (!JobRuns.overlaps(runs).isEmpty()) {
			violations.add("overlapping runs " + JobRuns.overlaps(runs));
		}
		report("K2. kill -9 of the holder of a kept-alive lock mid-run", recovery + " ms (" + next[0].nodeId() + ")",
				runs, violations);
	}

	private static void report(String scenario, String recovery, List<JobRuns.Run> runs, List<String> violations) {
		String verdict = violations.isEmpty() ? "pass" : "FAIL: " + String.join("; ", violations);
		FaultReport.add(new FaultReport.Entry(scenario, verdict, recovery,
				JobRuns.overlaps(runs).stream().mapToLong(JobRuns.Overlap::millis).sum(), 0, 0, runs.size() + " runs"));
		assertThat(violations).as(scenario).isEmpty();
	}

	/**
	 * @return database time from which a run was seen to start
	 */
	private static long awaitRun() {
		cluster.awaitSteady(3);
		long now = database.now();
		await("a run of the lock job").atMost(Duration.ofMillis(3 * RUN_MILLIS + 30_000))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> runsSince(now).stream().anyMatch((run) -> run.startedAt() >= now));
		return now;
	}

	/**
	 * Wait until a live node holds the lock past its atMostFor, kept alive: acquired more
	 * than atMostFor ago and not released.
	 * @return the holder
	 */
	private static String awaitMidRun() {
		String[] holder = new String[1];
		await("a kept-alive lock past its atMostFor").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				try (Connection connection = database.connect();
						PreparedStatement statement = connection.prepareStatement("SELECT leader_id, "
								+ database.nowMillis() + " - acquired_at, expires_at - " + database.nowMillis()
								+ " FROM " + FaultDatabase.LEASE_TABLE + " WHERE election_name = ?")) {
					statement.setString(1, LOCK_KEY);
					try (ResultSet row = statement.executeQuery()) {
						if (!row.next() || row.getString(1) == null) {
							return false;
						}
						holder[0] = row.getString(1);
						long age = row.getLong(2);
						return age > AT_MOST_FOR_MILLIS + 500 && age < RUN_MILLIS - 1500 && row.getLong(3) > 0;
					}
				}
				catch (SQLException ex) {
					return false;
				}
			});
		return holder[0];
	}

	private static List<JobRuns.Run> runsSince(long fromDbMillis) {
		return JobRuns.since(database, FaultDatabase.LOCK_JOB_RUNS_TABLE, fromDbMillis);
	}

}
