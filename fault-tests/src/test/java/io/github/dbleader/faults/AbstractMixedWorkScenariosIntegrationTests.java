package io.github.dbleader.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * I9 in the mix the README recommends, from outside: three sample processes, each leading
 * elections (the default one and four partitions each of a group of twelve), run the
 * cluster-lock job back to back, each fenced run lasting twice the lease, while the
 * others keep firing the same trigger. Over a window of several lock runs: no node logs
 * the database unreachable or its heartbeat failing (a deadlock, a lock wait), no
 * leadership of any election or partition is revoked, no round fails, at most 1% of the
 * rounds take longer than half the statement timeout (p99 below it), and the lock runs do
 * not overlap. One subclass per database: the cluster is started once per class, and a
 * subclass's own scenarios run after M1 on the same processes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class AbstractMixedWorkScenariosIntegrationTests {

	private static final String GROUP = "orders";

	private static final Duration RUN = SampleNode.LEASE.multipliedBy(2);

	/** Long enough for two lock runs. */
	private static final Duration WINDOW = RUN.multipliedBy(2).plusSeconds(2);

	private static final List<String> MIX = List.of("--leader-election.partitions." + GROUP + ".count=12",
			"--leader-election.partitions." + GROUP + ".settle-time=1s", "--sample.partition-job-interval=200ms",
			"--sample.partition-job-duration=20ms", "--sample.lock-job-cron=* * * * * *",
			"--sample.lock-job-at-most-for=" + RUN.plus(SampleNode.LEASE.multipliedBy(2)).toMillis() + "ms",
			"--sample.lock-job-at-least-for=500ms", "--sample.lock-job-duration=" + RUN.toMillis() + "ms");

	private final TestDatabase testDatabase;

	/** The database the processes run on. */
	protected FaultDatabase database;

	/** Three processes of the sample, each with the mix. */
	protected Cluster cluster;

	private PartitionWatch watch;

	/**
	 * Scenarios on one of the test rig's databases.
	 * @param testDatabase {@link TestDatabase#MYSQL} or {@link TestDatabase#POSTGRESQL}
	 */
	protected AbstractMixedWorkScenariosIntegrationTests(TestDatabase testDatabase) {
		this.testDatabase = testDatabase;
	}

	@BeforeAll
	void startCluster() {
		this.database = FaultDatabase.fromEnvironment(this.testDatabase);
		this.cluster = new Cluster(this.database, MIX);
		this.watch = new PartitionWatch(this.database, GROUP);
		this.cluster.start(3);
	}

	@AfterAll
	void stopCluster() {
		if (this.watch != null) {
			this.watch.close();
		}
		if (this.cluster != null) {
			this.cluster.close();
		}
	}

	@Test
	@Order(1)
	void lockRunsOfTwoLeasesHoldUpNoElection() throws Exception {
		List<SampleNode> nodes = this.cluster.live();
		Set<String> ids = nodes.stream().map(SampleNode::id).collect(Collectors.toSet());
		await("four partitions for each node").atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> this.watch.owners().keySet().equals(ids)
					&& this.watch.owners().values().stream().allMatch((owned) -> owned.size() == 4));
		Start start = Start.of(this.database, nodes);
		Thread.sleep(WINDOW.toMillis());
		List<String> violations = new ArrayList<>();
		StringBuilder details = new StringBuilder();
		for (SampleNode node : nodes) {
			violations.addAll(start.lines(node, "database unreachable", "heartbeat failing", "revoked from"));
			double[] since = start.roundsSince(node);
			double rounds = since[0];
			double failed = since[1];
			double slow = since[2];
			details.append(node.id())
				.append(": ")
				.append((long) rounds)
				.append(" rounds, ")
				.append((long) slow)
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
		List<JobRuns.Run> runs = start.lockRuns(this.database, violations);
		if (runs.isEmpty()) {
			violations.add("no lock run committed in " + WINDOW);
		}
		String verdict = violations.isEmpty() ? "pass" : "FAIL: " + String.join("; ", violations);
		FaultReport.add(new FaultReport.Entry(
				"M1. lock runs of 2 L beside elections and partitions on " + this.testDatabase + " (" + WINDOW + ")",
				verdict, "none", JobRuns.overlaps(runs).stream().mapToLong(JobRuns.Overlap::millis).sum(), 0, 0,
				runs.size() + " lock runs; " + details));
		assertThat(violations).isEmpty();
	}

	/**
	 * What a scenario compares at its end with what it sees then: each node's place in
	 * its log and its heartbeat rounds, and the database time, at the scenario's start.
	 *
	 * @param from database time
	 * @param marks each node's log mark, by node id
	 * @param rounds each node's successful, failed and slow rounds so far, by node id
	 */
	record Start(long from, Map<String, Long> marks, Map<String, double[]> rounds) {

		static Start of(FaultDatabase database, List<SampleNode> nodes) {
			Map<String, Long> marks = new TreeMap<>();
			Map<String, double[]> rounds = new TreeMap<>();
			for (SampleNode node : nodes) {
				marks.put(node.id(), node.log().mark());
				rounds.put(node.id(), rounds(node));
			}
			return new Start(database.now(), marks, rounds);
		}

		/**
		 * The lines a node logged since the start that contain one of some texts.
		 * @param node the node
		 * @param texts the texts
		 * @return the lines, each after the node's id
		 */
		List<String> lines(SampleNode node, String... texts) {
			List<String> lines = new ArrayList<>();
			for (String text : texts) {
				node.log()
					.linesContaining(this.marks.get(node.id()), text)
					.forEach((line) -> lines.add(node.id() + ": " + line));
			}
			return lines;
		}

		/**
		 * A node's heartbeat rounds since the start.
		 * @param node the node
		 * @return successful, failed and slow rounds
		 */
		double[] roundsSince(SampleNode node) {
			double[] was = this.rounds.get(node.id());
			double[] now = rounds(node);
			return new double[] { now[0] - was[0], now[1] - was[1], now[2] - was[2] };
		}

		/**
		 * The lock runs that finished since the start; any that overlap are a violation.
		 * @param database the database
		 * @param violations where the overlap goes
		 * @return the runs
		 */
		List<JobRuns.Run> lockRuns(FaultDatabase database, List<String> violations) {
			List<JobRuns.Run> runs = JobRuns.since(database, FaultDatabase.LOCK_JOB_RUNS_TABLE, this.from);
			if (!JobRuns.overlaps(runs).isEmpty()) {
				violations.add("overlapping lock runs " + JobRuns.overlaps(runs));
			}
			return runs;
		}

		/**
		 * @return successful rounds, failed rounds and slow rounds so far
		 */
		private static double[] rounds(SampleNode node) {
			return new double[] { node.meter("leader.election.heartbeat", "outcome:success"),
					node.meter("leader.election.heartbeat", "outcome:failure"),
					node.meter("leader.election.heartbeat.slow") };
		}

	}

}
