package io.github.dbleader.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.dbleader.benchmarks.harness.Database.Holder;
import io.github.dbleader.benchmarks.harness.Database.StatementCounters;

/**
 * The partition benchmark: for each number of partitions P, a partition group of P on
 * this starter's benchmark application. Two processes start together and balance; a third
 * joins a settle time later (time to balance after its join, partitions moved against the
 * minimum ⌊P/3⌋); a quiet window measures the statements of each node from the server's
 * counters; then {@code kill -9} of the node that owns the most (time until the two
 * others own P/2 each, partitions moved against the minimum, which is the killed node's).
 * The owners are polled from the lease table every {@value #POLL_MILLIS} ms, so that a
 * partition that moved twice counts twice.
 */
final class PartitionBenchmark {

	/** The group's name. */
	static final String GROUP = "bench";

	private static final long POLL_MILLIS = 100;

	private static final Duration BALANCE_TIMEOUT = Duration.ofMinutes(3);

	private final RunSettings settings;

	private final Database database;

	private final Path work;

	private final Duration settleTime;

	private final Duration warmUp;

	private final Duration window;

	PartitionBenchmark(RunSettings settings, Database database, Path work, Duration settleTime, Duration warmUp,
			Duration window) {
		this.settings = settings;
		this.database = database;
		this.work = work;
		this.settleTime = settleTime;
		this.warmUp = warmUp;
		this.window = window;
	}

	/**
	 * Measure one number of partitions; the processes are stopped at the end whatever
	 * happens.
	 * @param count partitions of the group
	 * @return the point
	 */
	Point run(int count) throws Exception {
		log(count, "starting");
		this.database.reset(SystemUnderTest.OURS);
		Node[] nodes = new Node[3];
		try (Connection connection = DriverManager.getConnection(this.database.applicationUrl(),
				this.settings.adminUser(), this.settings.adminPassword())) {
			Owners owners = new Owners(connection);
			long startedAt = System.nanoTime();
			for (int slot = 1; slot <= 2; slot++) {
				nodes[slot - 1] = start(slot, count);
			}
			for (int slot = 1; slot <= 2; slot++) {
				nodes[slot - 1].awaitStarted(Duration.ofMinutes(3));
			}
			owners.awaitBalanced(count, List.of(nodes[0].id(), nodes[1].id()));
			Duration started = Duration.ofNanos(System.nanoTime() - startedAt);
			log(count, "2 nodes balanced " + started.toMillis() + " ms after the start");

			// A node that joins within the settle time of the oldest member balances at
			// once (a cluster starting together): wait that long, so the third node is a
			// late joiner.
			Thread.sleep(this.settleTime.toMillis());
			long joinFrom = this.database.now();
			nodes[2] = start(3, count);
			nodes[2].awaitStarted(Duration.ofMinutes(3));
			Map<String, String> joined = owners.awaitBalanced(count, ids(nodes));
			long joinedAt = owners.firstSeen(nodes[2].id());
			Change join = owners.since(joinFrom, joined, joinedAt);
			log(count, "join: " + join);

			Thread.sleep(this.warmUp.toMillis());
			long from = this.database.now();
			Map<String, StatementCounters> before = this.database.statementCounters();
			Thread.sleep(this.window.toMillis());
			Map<String, StatementCounters> after = this.database.statementCounters();
			long to = this.database.now();
			List<StatementCounters> statements = new ArrayList<>();
			for (int slot = 1; slot <= 3; slot++) {
				String user = Database.user(slot);
				statements.add(after.getOrDefault(user, StatementCounters.NONE)
					.minus(before.getOrDefault(user, StatementCounters.NONE)));
			}
			log(count, "window: " + statements);

			Map<String, Integer> perNode = owners.perNode(owners.current());
			Node victim = nodes[0];
			for (Node node : nodes) {
				if (perNode.getOrDefault(node.id(), 0) > perNode.getOrDefault(victim.id(), 0)) {
					victim = node;
				}
			}
			List<String> survivors = new ArrayList<>(ids(nodes));
			survivors.remove(victim.id());
			Map<String, String> beforeCrash = owners.current();
			long killedAt = this.database.now();
			victim.kill();
			Map<String, String> afterCrash = owners.awaitBalanced(count, survivors);
			Change crash = owners.since(killedAt, afterCrash, killedAt);
			int victimOwned = (int) beforeCrash.values().stream().filter(victim.id()::equals).count();
			log(count, "kill -9 of " + victim.id() + " (" + victimOwned + " partitions): " + crash);
			return new Point(count, started, join, count / 3, (to - from) / 1000.0, statements, crash, victimOwned,
					null);
		}
		catch (RuntimeException | SQLException ex) {
			log(count, "failed: " + ex);
			return new Point(count, null, null, 0, 0, List.of(), null, 0, ex.toString());
		}
		finally {
			for (Node node : nodes) {
				if (node != null) {
					node.close();
				}
			}
		}
	}

	private Node start(int slot, int count) throws IOException {
		return Node.start(SystemUnderTest.OURS, slot, "partitions-" + count + "-" + slot, this.settings, this.database,
				this.work.resolve("logs"),
				List.of("--bench.scale=1", "--leader-election.partitions." + GROUP + ".count=" + count,
						"--leader-election.partitions." + GROUP + ".settle-time=" + this.settleTime.toMillis() + "ms"));
	}

	private static List<String> ids(Node[] nodes) {
		List<String> ids = new ArrayList<>();
		for (Node node : nodes) {
			ids.add(node.id());
		}
		return ids;
	}

	private static void log(int count, String message) {
		System.out.println("[partitions " + count + "] " + message);
	}

	/**
	 * The owners of the group's partitions, polled from the lease table, with every
	 * change of owner seen.
	 */
	private final class Owners {

		private final Connection connection;

		/** Changes of owner: partition, new owner, when seen (database clock). */
		private final List<Move> moves = new ArrayList<>();

		private Map<String, String> last = Map.of();

		Owners(Connection connection) {
			this.connection = connection;
		}

		/** Read the live owners now and remember the changes since the last read. */
		Map<String, String> current() throws SQLException {
			Map<String, String> owners = new HashMap<>();
			Map<String, Long> acquired = new HashMap<>();
			for (Map.Entry<String, Holder> entry : PartitionBenchmark.this.database.holders(SystemUnderTest.OURS)
				.entrySet()) {
				if (entry.getKey().startsWith("partition:" + GROUP + ":")) {
					owners.put(entry.getKey(), entry.getValue().holder());
					acquired.put(entry.getKey(), entry.getValue().acquiredAt());
				}
			}
			for (Map.Entry<String, String> owner : owners.entrySet()) {
				String previous = this.last.get(owner.getKey());
				if (!owner.getValue().equals(previous)) {
					this.moves.add(new Move(owner.getKey(), previous, owner.getValue(), acquired.get(owner.getKey())));
				}
			}
			// A partition without a live owner keeps its last owner, so that a crash's
			// partitions count as moved once, from the killed node to the new owner.
			Map<String, String> kept = new HashMap<>(this.last);
			kept.putAll(owners);
			this.last = kept;
			return owners;
		}

		Map<String, Integer> perNode(Map<String, String> owners) {
			Map<String, Integer> perNode = new TreeMap<>();
			owners.values().forEach((owner) -> perNode.merge(owner, 1, Integer::sum));
			return perNode;
		}

		/**
		 * Poll until every partition has a live owner among the nodes and each owns ⌊P/N⌋
		 * or ⌈P/N⌉.
		 */
		Map<String, String> awaitBalanced(int count, List<String> nodes) throws SQLException, InterruptedException {
			long deadline = System.nanoTime() + BALANCE_TIMEOUT.toNanos();
			while (true) {
				Map<String, String> owners = current();
				Map<String, Integer> perNode = perNode(owners);
				int floor = count / nodes.size();
				int ceil = floor + ((count % nodes.size() == 0) ? 0 : 1);
				boolean balanced = owners.size() == count && perNode.keySet().stream().allMatch(nodes::contains)
						&& nodes.stream().allMatch((node) -> {
							int owned = perNode.getOrDefault(node, 0);
							return owned >= floor && owned <= ceil;
						});
				if (balanced) {
					return owners;
				}
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("not balanced within " + BALANCE_TIMEOUT + ": " + perNode);
				}
				Thread.sleep(POLL_MILLIS);
			}
		}

		/**
		 * The moves seen at or after a database time.
		 * @param fromDbMillis database time of the membership change
		 * @param balanced the owners once balanced
		 * @param clockStart database time the balance time counts from
		 */
		Change since(long fromDbMillis, Map<String, String> balanced, long clockStart) {
			int moved = 0;
			long last = clockStart;
			for (Move move : this.moves) {
				if (move.seenAt() >= fromDbMillis && move.from() != null) {
					moved++;
					last = Math.max(last, move.seenAt());
				}
			}
			return new Change(moved, last - clockStart, perNode(balanced));
		}

		/** When a node's row first appeared in the nodes table (database clock). */
		long firstSeen(String nodeId) throws SQLException {
			try (PreparedStatement statement = this.connection
				.prepareStatement("SELECT first_seen FROM leader_election_lease_nodes WHERE node_id = ?")) {
				statement.setString(1, nodeId);
				try (ResultSet result = statement.executeQuery()) {
					if (!result.next()) {
						throw new IllegalStateException("no row of node " + nodeId);
					}
					return result.getLong(1);
				}
			}
		}

	}

	/**
	 * A change of owner seen.
	 *
	 * @param partition partition election
	 * @param from previous owner, {@code null} for the first
	 * @param to new owner
	 * @param seenAt when the new owner acquired it (database clock)
	 */
	private record Move(String partition, String from, String to, long seenAt) {
	}

	/**
	 * What a change of membership did.
	 *
	 * @param moved partitions that changed owner (twice for a partition that moved twice)
	 * @param balanceMillis from the start of the count (the join of the new node, or the
	 * kill) until the last partition reached its new owner
	 * @param perNode partitions per node once balanced
	 */
	record Change(int moved, long balanceMillis, Map<String, Integer> perNode) {
	}

	/**
	 * One number of partitions.
	 *
	 * @param count partitions
	 * @param started from the start of two processes until they owned P/2 each
	 * @param join the third node's join
	 * @param joinMinimum the fewest moves a join can make, ⌊P/3⌋
	 * @param seconds length of the quiet window (database clock)
	 * @param statements statements of each node in the window, by slot
	 * @param crash the kill -9 of the node that owned the most
	 * @param crashMinimum the fewest moves a crash can make: the killed node's partitions
	 * @param failure why the point was not measured, or {@code null}
	 */
	record Point(int count, Duration started, Change join, int joinMinimum, double seconds,
			List<StatementCounters> statements, Change crash, int crashMinimum, String failure) {

		double maxStatementsPerSecond() {
			return this.statements.stream().mapToLong(StatementCounters::total).max().orElse(0) / this.seconds;
		}

		double minStatementsPerSecond() {
			return this.statements.stream().mapToLong(StatementCounters::total).min().orElse(0) / this.seconds;
		}

	}

}
