package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * I9 in the mix the README recommends, from outside: three sample processes, each leading
 * elections (the default one and four partitions each of a group of twelve), run the
 * cluster-lock job back to back, each fenced run lasting twice the lease, while the others
 * keep firing the same trigger. Over a window of several lock runs: no node logs the
 * database unreachable, no leadership of any election or partition is revoked, no round
 * fails, at most 1% of the rounds take longer than half the statement timeout (p99 below
 * it), and the lock runs do not overlap.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MixedWorkScenariosIntegrationTests {

	private static final String GROUP = "orders";

	private static final Duration RUN = SampleNode.LEASE.multipliedBy(2);

	/** Long enough for two lock runs. */
	private static final Duration WINDOW = RUN.multipliedBy(2).plusSeconds(2);

	/** How long M2 loads the database. */
	private static final Duration LOAD = Duration.ofSeconds(60);

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
	@Order(1)
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
		if (runs.isEmpty()) {
			violations.add("no lock run committed in " + WINDOW);
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

	/**
	 * M2. A minute of heavy load on the database from the application's side, with the mix
	 * of M1 still running: every node's application pool held by slow queries, two long
	 * transactions that keep rows locked and the purge of old row versions behind, and two
	 * sessions running CPU-heavy queries without pause. Statements still complete within the
	 * statement timeout, so no election or partition changes holder.
	 */
	@Test
	@Order(2)
	void aMinuteOfHeavyDatabaseLoadChangesNoHolder() throws Exception {
		List<SampleNode> nodes = cluster.live();
		Map<String, Long> marks = new TreeMap<>();
		Map<String, double[]> before = new TreeMap<>();
		for (SampleNode node : nodes) {
			marks.put(node.id(), node.log().mark());
			before.put(node.id(), rounds(node));
		}
		long from = database.now();
		AtomicBoolean loading = new AtomicBoolean(true);
		AtomicLong heavyQueries = new AtomicLong();
		ExecutorService load = Executors.newFixedThreadPool(4);
		try (Connection setup = database.connect(); Statement statement = setup.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS fault_load");
			statement.execute("CREATE TABLE fault_load (id INT PRIMARY KEY, payload VARCHAR(200))");
			StringBuilder rows = new StringBuilder("INSERT INTO fault_load (id, payload) VALUES ");
			for (int id = 0; id < 5000; id++) {
				rows.append((id == 0) ? "" : ", ").append('(').append(id).append(", REPEAT('x', 200))");
			}
			statement.execute(rows.toString());
		}
		for (int i = 0; i < 2; i++) {
			int half = i;
			load.execute(() -> longTransaction(loading, half));
			load.execute(() -> heavyQueries(loading, heavyQueries));
		}
		try {
			for (int held = 0; held < LOAD.toSeconds(); held += 30) {
				for (SampleNode node : nodes) {
					node.holdApplicationConnections(SampleNode.POOL_SIZE, 30);
				}
				Thread.sleep(Math.min(30, LOAD.toSeconds() - held) * 1000);
			}
		}
		finally {
			loading.set(false);
			load.shutdown();
			assertThat(load.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		}
		List<String> violations = new ArrayList<>();
		StringBuilder details = new StringBuilder();
		for (SampleNode node : nodes) {
			long mark = marks.get(node.id());
			for (String text : List.of("revoked from", "leadership granted")) {
				node.log().linesContaining(mark, text).forEach((line) -> violations.add(node.id() + ": " + line));
			}
			double[] was = before.get(node.id());
			double[] now = rounds(node);
			details.append(node.id()).append(": ").append((long) (now[0] - was[0])).append(" rounds, ")
				.append((long) (now[1] - was[1])).append(" failed, ").append((long) (now[2] - was[2]))
				.append(" slow; ");
		}
		List<JobRuns.Run> runs = JobRuns.since(database, FaultDatabase.LOCK_JOB_RUNS_TABLE, from);
		if (!JobRuns.overlaps(runs).isEmpty()) {
			violations.add("overlapping lock runs " + JobRuns.overlaps(runs));
		}
		String verdict = violations.isEmpty() ? "pass" : "FAIL: " + String.join("; ", violations);
		FaultReport.add(new FaultReport.Entry("M2. heavy database load (" + LOAD + "): pools held, long transactions, "
				+ heavyQueries.get() + " CPU-heavy queries", verdict, "none",
				JobRuns.overlaps(runs).stream().mapToLong(JobRuns.Overlap::millis).sum(), 0, 0,
				runs.size() + " lock runs; " + details));
		assertThat(violations).as("changes of holder under load").isEmpty();
	}

	/** A transaction that keeps half of the load table's rows locked, and rewrites them, for the whole load. */
	private static void longTransaction(AtomicBoolean loading, int half) {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			while (loading.get()) {
				statement.executeUpdate("UPDATE fault_load SET payload = REVERSE(payload) WHERE id % 2 = " + half);
				Thread.sleep(500);
			}
			connection.rollback();
		}
		catch (SQLException | InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** CPU-heavy queries, one after another, on a session of their own. */
	private static void heavyQueries(AtomicBoolean loading, AtomicLong count) {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			while (loading.get()) {
				statement.executeQuery("SELECT BENCHMARK(2000000, SHA2(RAND(), 256))").close();
				count.incrementAndGet();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** @return successful rounds, failed rounds and slow rounds so far */
	private static double[] rounds(SampleNode node) {
		return new double[] { node.meter("leader.election.heartbeat", "outcome:success"),
				node.meter("leader.election.heartbeat", "outcome:failure"),
				node.meter("leader.election.heartbeat.slow") };
	}

}
