package io.github.dbleader.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * I9 in the mix the README recommends, from outside: three sample processes, each leading
 * elections (the default one and four partitions each of a group of twelve), run the
 * cluster-lock job back to back, each fenced run lasting twice the lease, while the others
 * keep firing the same trigger. Over a window of several lock runs: no node logs the
 * database unreachable, no leadership of any election or partition is revoked, no round
 * fails, at most 1% of the rounds take longer than half the statement timeout (p99 below
 * it), and the lock runs do not overlap.
 */
class MixedWorkScenariosIntegrationTests {

	private static final String GROUP = "orders";

	private static final Duration RUN = SampleNode.LEASE.multipliedBy(2);

	/** Long enough for three lock runs. */
	private static final Duration WINDOW = RUN.multipliedBy(3).plusSeconds(2);

	private static final List<String> MIX = List.of("--leader-election.partitions." + GROUP + ".count=12",
			"--leader-election.partitions." + GROUP + ".settle-time=1s", "--sample.partition-job-interval=200ms",
			"--sample.partition-job-duration=20ms", "--sample.lock-job-cron=* * * * * *",
			"--sample.lock-job-at-most-for=" + RUN.plus(SampleNode.LEASE.multipliedBy(2)).toMillis() + "ms",
			"--sample.lock-job-at-least-for=500ms", "--sample.lock-job-duration=" + RUN.toMillis() + "ms");

	private static FaultDatabase database;

	private static Cluster cluster;

	private static PartitionWatch watch;

	@BeforeAll
	static void startCluster() {
		database = FaultDatabase.fromEnvironment();
		cluster = new Cluster(database, MIX);
		watch = new PartitionWatch(database, GROUP);
		cluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		if (watch != null) {
			watch.close();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void lockRunsOfTwoLeasesHoldUpNoElection() throws Exception {
		List<SampleNode> nodes = cluster.live();
		Set<String> ids = nodes.stream().map(SampleNode::id).collect(Collectors.toSet());
		await("four partitions for each node").atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> watch.owners().keySet().equals(ids)
					&& watch.owners().values().stream().allMatch((owned) -> owned.size() == 4));
		Map<String, Long> marks = new TreeMap<>();
		Map<String, double[]> before = new TreeMap<>();
		for (SampleNode node : nodes) {
			marks.put(node.id(), node.log().mark());
			before.put(node.id(), rounds(node));
		}
		long from = database.now();
		Thread.sleep(WINDOW.toMillis());
		List<String> violations = new ArrayList<>();
		StringBuilder details = new StringBuilder();
		for (SampleNode node : nodes) {
			long mark = marks.get(node.id());
			for (String text : List.of("database unreachable", "revoked from")) {
				node.log().linesContaining(mark, text).forEach((line) -> violations.add(node.id() + ": " + line));
			}
			double[] was = before.get(node.id());
			double[] now = rounds(node);
			double rounds = now[0] - was[0];
			double failed = now[1] - was[1];
			double slow = now[2] - was[2];
			details.append(node.id()).append(": ").append((long) rounds).append(" rounds, ").append((long) slow)
				.append(" slow; ");
			if (rounds < WINDOW.toMillis() / SampleNode.RENEW.toMillis() / 2) {
				violations.add(node.id() + " ran only " + rounds + " rounds");
			}
			if (failed > 0) {
				violations.add(node.id() + ": " + (long) failed + " failed rounds");
			}
			if (slow > rounds / 100) {
				violations.add(node.id() + ": " + (long) slow + " of " + (long) rounds
						+ " rounds took longer than half the statement timeout");
			}
		}
		List<JobRuns.Run> runs = JobRuns.since(database, FaultDatabase.LOCK_JOB_RUNS_TABLE, from);
		if (runs.size() < 2) {
			violations.add("only " + runs.size() + " lock runs committed in " + WINDOW);
		}
		if (!JobRuns.overlaps(runs).isEmpty()) {
			violations.add("overlapping lock runs " + JobRuns.overlaps(runs));
		}
		String verdict = violations.isEmpty() ? "pass" : "FAIL: " + String.join("; ", violations);
		FaultReport.add(new FaultReport.Entry("M1. lock runs of 2 L beside elections and partitions (" + WINDOW + ")",
				verdict, "none", JobRuns.overlaps(runs).stream().mapToLong(JobRuns.Overlap::millis).sum(), 0, 0,
				runs.size() + " lock runs; " + details));
		assertThat(violations).isEmpty();
	}

	/** @return successful rounds, failed rounds and slow rounds so far */
	private static double[] rounds(SampleNode node) {
		return new double[] { node.meter("leader.election.heartbeat", "outcome:success"),
				node.meter("leader.election.heartbeat", "outcome:failure"),
				node.meter("leader.election.heartbeat.slow") };
	}

}
