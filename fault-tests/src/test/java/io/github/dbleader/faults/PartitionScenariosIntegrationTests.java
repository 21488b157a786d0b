package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
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
 * The sample's partition group ({@value #COUNT} partitions, each an election) on three,
 * then four processes of the sample on the real MySQL-protocol database. Every process
 * works on the partitions it owns every {@value #JOB_INTERVAL_MILLIS} ms, one fenced
 * transaction per partition recorded in {@code fault_partition_job_runs}. The test reads
 * the partitions' lease rows every {@value PartitionWatch#PERIOD_MILLIS} ms from its own
 * connection ({@link PartitionWatch}) and checks, in order:
 * <ol>
 * <li>start of three processes: each owns 4;
 * <li>SIGTERM of one: the other two own 6 each, and only its 4 partitions moved, once
 * each;
 * <li>a third process joins: 4 partitions move to it, once each, and no others;
 * <li>a fourth joins: 3 move to it and no others;
 * <li>{@code kill -9} of one: its 3 fail over after about a lease to the others, and the
 * others stay;
 * <li>SIGSTOP of one of three for longer than a lease: its 4 fail over to the others, and
 * the three balance again once it is back;
 * </ol>
 * and, for every partition over the whole run, that no two runs of different owners or
 * terms overlap and no run of a term committed after a newer term was seen in the lease
 * row or had run. The times to balance (database clock, in renew intervals R) go to the
 * fault report ({@code target/fault-report.md}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ForkUse(ForkUse.Mode.SHARED)
class PartitionScenariosIntegrationTests {

	static final int COUNT = 12;

	static final long JOB_INTERVAL_MILLIS = 200;

	static final String GROUP = "orders";

	/**
	 * Settle time: a joining process receives partitions once it has been live this long.
	 */
	static final Duration SETTLE = Duration.ofSeconds(5);

	private static final long RENEW = SampleNode.RENEW.toMillis();

	private static final long LEASE = SampleNode.LEASE.toMillis();

	private static final List<String> PARTITIONS = List.of("--leader-election.partitions." + GROUP + ".count=" + COUNT,
			"--leader-election.partitions." + GROUP + ".settle-time=" + SETTLE.toMillis() + "ms",
			"--sample.partition-job-interval=" + JOB_INTERVAL_MILLIS + "ms", "--sample.partition-job-duration=20ms");

	private static FaultDatabase database;

	private static Cluster cluster;

	private static PartitionWatch watch;

	private static long suiteStart;

	@BeforeAll
	static void startWatching() {
		database = FaultDatabase.forThisFork();
		cluster = new Cluster(database, PARTITIONS);
		watch = new PartitionWatch(database, GROUP);
		suiteStart = database.now();
	}

	@AfterAll
	static void stop() {
		if (watch != null) {
			watch.close();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	/**
	 * P1. Three processes start together: each owns 4, soon after the third one joined.
	 */
	@Test
	@Order(1)
	void threeNodesStartingTogetherOwnFourEach() {
		cluster.start(3);
		Map<String, Set<Integer>> owners = awaitBalanced(cluster.live(), 4, Duration.ofSeconds(60));
		long thirdJoined = latestJoin();
		long balancedAt = watch.lastOwnerChange(suiteStart);
		long balanceMillis = balancedAt - thirdJoined;
		report("P1. three processes start", balanceMillis, "owners " + owners + "; the first and the third joined "
				+ (thirdJoined - earliestJoin()) + " ms apart");
		// A few renew intervals: the balancing step of each node, then a hand-over (two
		// renewals).
		assertThat(balanceMillis).as("time from the third node's join to 4/4/4").isLessThanOrEqualTo(6 * RENEW);
	}

	/** P2. SIGTERM of one: only its 4 partitions move, to the other two (6 each). */
	@Test
	@Order(2)
	void gracefulStopMovesOnlyTheStoppedNodesPartitions() {
		Map<String, Set<Integer>> before = awaitBalanced(cluster.live(), 4, Duration.ofSeconds(30));
		SampleNode stopped = cluster.live().get(0);
		long from = database.now();
		stopped.terminate();
		Map<String, Set<Integer>> after = awaitBalanced(cluster.live(), 6, Duration.ofSeconds(30));
		long released = watch.firstOwnerChange(from);
		long balanced = watch.lastOwnerChange(from);
		Map<Integer, Integer> moves = watch.moves(from);
		report("P2. SIGTERM of " + stopped.id(), balanced - released,
				"SIGTERM to first release " + (released - from) + " ms; moves " + moves + "; owners " + after);
		assertThat(moves).as("partitions moved, each once").isEqualTo(once(before.get(stopped.id())));
		assertThat(balanced - released).as("first release to 6/6").isLessThanOrEqualTo(2 * RENEW + RENEW / 2);
	}

	/**
	 * P3. A third node joins two: 4 partitions move to it once it has settled, no others.
	 */
	@Test
	@Order(3)
	void aJoiningNodeReceivesItsShareAndNothingElseMoves() {
		joins(2, 4, "P3. a node joins two");
	}

	/** P4. A fourth node joins three: 3 partitions move to it, no others. */
	@Test
	@Order(4)
	void aFourthNodeReceivesThreeAndNothingElseMoves() {
		joins(3, 3, "P4. a fourth node joins three");
	}

	/**
	 * P5. {@code kill -9} of one of four: its 3 partitions fail over after about a lease;
	 * the others stay.
	 */
	@Test
	@Order(5)
	void killedNodesPartitionsFailOverAfterALeaseAndOnlyThey() {
		Map<String, Set<Integer>> before = awaitBalanced(cluster.live(), 3, Duration.ofSeconds(30));
		SampleNode killed = cluster.live().get(cluster.live().size() - 1);
		long from = database.now();
		killed.kill();
		Map<String, Set<Integer>> after = awaitBalanced(cluster.live(), 4, Duration.ofSeconds(30));
		long balanced = watch.lastOwnerChange(from);
		Map<Integer, Integer> moves = watch.moves(from);
		report("P5. kill -9 of " + killed.id(), balanced - from, "moves " + moves + "; owners " + after);
		assertThat(moves).as("partitions moved, each once").isEqualTo(once(before.get(killed.id())));
		// The lease runs out (L after the last renewal), then the targets take the free
		// partitions at their next heartbeat and balancing step.
		assertThat(balanced - from).as("kill to 4/4/4").isLessThanOrEqualTo(LEASE + 3 * RENEW);
	}

	/**
	 * P6. SIGSTOP of one of three for longer than a lease: its partitions fail over to
	 * the other two while it is paused, and once it is back the three balance again; a
	 * run it had under way cannot commit (checked with the others at the end).
	 */
	@Test
	@Order(6)
	void pausedNodesPartitionsFailOverAndTheClusterBalancesAgainAfterItsReturn() throws InterruptedException {
		Map<String, Set<Integer>> before = awaitBalanced(cluster.live(), 4, Duration.ofSeconds(30));
		SampleNode paused = cluster.live().get(0);
		List<SampleNode> others = cluster.others(paused);
		long from = database.now();
		paused.pause();
		try {
			Map<String, Set<Integer>> during = awaitBalanced(others, 6, Duration.ofSeconds(30));
			long failedOver = watch.lastOwnerChange(from);
			Map<Integer, Integer> moves = watch.moves(from);
			report("P6. SIGSTOP of " + paused.id() + " for longer than a lease", failedOver - from,
					"moves while paused " + moves + "; owners " + during);
			assertThat(moves).as("partitions moved while paused, each once").isEqualTo(once(before.get(paused.id())));
			assertThat(failedOver - from).as("pause to 6/6").isLessThanOrEqualTo(LEASE + 3 * RENEW);
		}
		finally {
			paused.resume();
		}
		awaitBalanced(cluster.live(), 4, Duration.ofSeconds(60));
	}

	/** Over the whole run: no overlap and no stale commit in any partition. */
	@Test
	@Order(7)
	void noPartitionHadOverlappingRunsOrStaleCommits() {
		Map<String, List<JobRuns.Run>> runs = runsByPartition(suiteStart);
		Map<String, List<LeaseMonitor.Sighting>> terms = watch.terms();
		List<String> violations = new ArrayList<>();
		int total = 0;
		long overlapMillis = 0;
		int stale = 0;
		for (Map.Entry<String, List<JobRuns.Run>> partition : runs.entrySet()) {
			total += partition.getValue().size();
			List<JobRuns.Overlap> overlaps = JobRuns.overlaps(partition.getValue());
			List<JobRuns.Run> staleRuns = JobRuns.staleWrites(partition.getValue(),
					terms.getOrDefault(partition.getKey(), List.of()));
			overlapMillis += overlaps.stream().mapToLong(JobRuns.Overlap::millis).sum();
			stale += staleRuns.size();
			if (!overlaps.isEmpty()) {
				violations.add(partition.getKey() + ": overlapping runs " + overlaps);
			}
			if (!staleRuns.isEmpty()) {
				violations.add(partition.getKey() + ": stale runs " + staleRuns);
			}
		}
		long termsSeen = terms.values().stream().mapToLong(List::size).sum();
		FaultReport.add(new FaultReport.Entry("P7. partitions: every run of every partition (P1 to P6)",
				violations.isEmpty() ? "pass" : "FAIL: " + String.join("; ", violations), "-", overlapMillis, stale, 0,
				total + " runs in " + runs.size() + " partitions, " + termsSeen + " terms seen"));
		assertThat(runs).as("partitions with runs").hasSize(COUNT);
		assertThat(violations).isEmpty();
	}

	/**
	 * Start one process that joins {@code live} others and check that exactly
	 * {@code share} partitions move, each once, all to it.
	 */
	private static void joins(int live, int share, String scenario) {
		int perNode = COUNT / live;
		awaitBalanced(cluster.live(), perNode, Duration.ofSeconds(30));
		assertThat(cluster.live()).hasSize(live);
		long from = database.now();
		cluster.start(1);
		SampleNode joined = cluster.live().get(cluster.live().size() - 1);
		Map<String, Set<Integer>> after = awaitBalanced(cluster.live(), COUNT / (live + 1), Duration.ofSeconds(60));
		long joinedAt = joinOf(joined.id());
		long balanced = watch.lastOwnerChange(from);
		Map<Integer, Integer> moves = watch.moves(from);
		long fromSettled = balanced - (joinedAt + SETTLE.toMillis());
		report(scenario + " (" + joined.id() + ")", fromSettled, "join to balance " + (balanced - joinedAt)
				+ " ms (settle time " + SETTLE.toMillis() + " ms); moves " + moves + "; owners " + after);
		assertThat(moves).as("partitions moved, each once").isEqualTo(once(after.get(joined.id())));
		assertThat(after.get(joined.id())).hasSize(share);
		assertThat(fromSettled).as("settled to balanced").isLessThanOrEqualTo(4 * RENEW);
	}

	/**
	 * Wait until each of the given processes owns exactly {@code each} partitions (in the
	 * lease rows, unexpired) and nobody else owns one, and it stays so for two renew
	 * intervals.
	 * @return the owned partitions by node
	 */
	private static Map<String, Set<Integer>> awaitBalanced(List<SampleNode> nodes, int each, Duration timeout) {
		Set<String> ids = nodes.stream().map(SampleNode::id).collect(Collectors.toCollection(TreeSet::new));
		AtomicReference<Map<String, Set<Integer>>> seen = new AtomicReference<>();
		long[] since = { Long.MAX_VALUE };
		await(each + " partitions for each of " + ids).atMost(timeout)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				Map<String, Set<Integer>> owners = watch.owners();
				boolean balanced = owners.keySet().equals(ids)
						&& owners.values().stream().allMatch((owned) -> owned.size() == each);
				if (!balanced || !owners.equals(seen.get())) {
					since[0] = balanced ? System.nanoTime() : Long.MAX_VALUE;
				}
				seen.set(owners);
				return balanced && System.nanoTime() - since[0] >= 2 * RENEW * 1_000_000;
			});
		return seen.get();
	}

	private static Map<Integer, Integer> once(Set<Integer> partitions) {
		Map<Integer, Integer> once = new TreeMap<>();
		partitions.forEach((partition) -> once.put(partition, 1));
		return once;
	}

	private static void report(String scenario, long balanceMillis, String details) {
		FaultReport.add(new FaultReport.Entry(scenario, "pass",
				balanceMillis + " ms (" + String.format("%.1f", (double) balanceMillis / RENEW) + " R)", 0, 0, 0,
				details));
	}

	private static long latestJoin() {
		return joins().values().stream().mapToLong(Long::longValue).max().orElseThrow();
	}

	private static long earliestJoin() {
		return joins().values().stream().mapToLong(Long::longValue).min().orElseThrow();
	}

	private static long joinOf(String nodeId) {
		return joins().get(nodeId);
	}

	/** When each node's row first appeared in the nodes table (database clock). */
	private static Map<String, Long> joins() {
		Map<String, Long> joins = new HashMap<>();
		try (Connection connection = database.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT node_id, first_seen FROM " + FaultDatabase.LEASE_TABLE + "_nodes");
				ResultSet result = statement.executeQuery()) {
			while (result.next()) {
				joins.put(result.getString(1), result.getLong(2));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the nodes", ex);
		}
		return joins;
	}

	/**
	 * The partitioned job's runs since a database time, by partition election, ordered by
	 * start.
	 */
	private static Map<String, List<JobRuns.Run>> runsByPartition(long fromDbMillis) {
		Map<String, List<JobRuns.Run>> runs = new TreeMap<>();
		try (Connection connection = database.connect();
				PreparedStatement statement = connection.prepareStatement("SELECT election, node_id, term, started_at, "
						+ "finished_at FROM " + FaultDatabase.PARTITION_JOB_RUNS_TABLE
						+ " WHERE finished_at >= ? ORDER BY started_at, finished_at")) {
			statement.setLong(1, fromDbMillis);
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					runs.computeIfAbsent(result.getString(1), (election) -> new ArrayList<>())
						.add(new JobRuns.Run(result.getString(2), result.getLong(3), result.getLong(4),
								result.getLong(5)));
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the partitioned job's runs", ex);
		}
		return runs;
	}

}
