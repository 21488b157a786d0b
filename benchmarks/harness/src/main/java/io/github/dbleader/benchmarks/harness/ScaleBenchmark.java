package io.github.dbleader.benchmarks.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.dbleader.benchmarks.harness.Database.Holder;
import io.github.dbleader.benchmarks.harness.Database.StatementCounters;

/**
 * The scale benchmark: for each system and size, a cluster of three processes with that
 * many elections (this starter), roles (Spring Integration, one
 * {@code LockRegistryLeaderInitiator} each) or locks (ShedLock, each tried once per renew
 * interval). Each point waits until every election has a leader, warms up, then measures
 * a quiet window: statements per node from the server's counters, the heartbeat round
 * time from this starter's {@code leader.election.heartbeat} timer, and the changes of
 * holder (which must be none); then {@code kill -9} of the node that leads the most and
 * the time until every one of its elections has another leader.
 */
final class ScaleBenchmark {

	/**
	 * What this starter's node logs when a statement of its heartbeat fails: the database
	 * did not answer (also "database unreachable (statement timed out)"), or answered
	 * with an error ("heartbeat failing (deadlock or lock wait)" and the like).
	 */
	private static final List<String> FAILED = List.of("database unreachable", "heartbeat failing (");

	private static final Pattern VALUE = Pattern.compile("\"statistic\":\"(\\w+)\",\"value\":([-0-9.Ee]+)");

	/**
	 * The longest wait until every election has a leader before a point is measured
	 * anyway.
	 */
	static final Duration START_TIMEOUT = Duration.ofMinutes(3);

	private final RunSettings settings;

	private final Database database;

	private final Path work;

	private final Duration warmUp;

	private final Duration window;

	ScaleBenchmark(RunSettings settings, Database database, Path work, Duration warmUp, Duration window) {
		this.settings = settings;
		this.database = database;
		this.work = work;
		this.warmUp = warmUp;
		this.window = window;
	}

	/**
	 * Measure one point; the processes are stopped at the end whatever happens.
	 * @param system the system
	 * @param size the number of elections, roles or locks
	 * @return the point
	 */
	Point run(SystemUnderTest system, int size) throws Exception {
		log(system, size, "starting");
		this.database.reset(system);
		List<String> arguments = arguments(system, size);
		Node[] nodes = new Node[this.settings.nodes()];
		try {
			for (int slot = 1; slot <= nodes.length; slot++) {
				nodes[slot - 1] = Node.start(system, slot, system.name().toLowerCase() + "-scale-" + size + "-" + slot,
						this.settings, this.database, this.work.resolve("logs"), arguments);
			}
			long startedAt = System.nanoTime();
			for (Node node : nodes) {
				node.awaitStarted(Duration.ofMinutes(3));
			}
			Duration allLed = awaitAllLed(system, size, startedAt);
			log(system, size, ((allLed != null) ? "all led " + allLed.toMillis() + " ms after the start"
					: "not all led " + START_TIMEOUT.toSeconds() + " s after the start") + "; warm-up");
			sleep(this.warmUp);
			Map<String, Holder> holdersBefore = this.database.holders(system);
			List<Timer> timersBefore = timers(system, nodes);
			long[] logPositions = new long[nodes.length];
			for (int i = 0; i < nodes.length; i++) {
				logPositions[i] = nodes[i].logPosition();
			}
			// The counters are read right at the window's ends, so that its length is
			// theirs.
			long from = this.database.now();
			Map<String, StatementCounters> countersBefore = this.database.statementCounters();
			sleep(this.window);
			Map<String, StatementCounters> countersAfter = this.database.statementCounters();
			long to = this.database.now();
			List<Timer> timersAfter = timers(system, nodes);
			Map<String, Holder> holdersAfter = this.database.holders(system);
			List<StatementCounters> statements = new ArrayList<>();
			for (int slot = 1; slot <= nodes.length; slot++) {
				String user = Database.user(slot);
				statements.add(countersAfter.getOrDefault(user, StatementCounters.NONE)
					.minus(countersBefore.getOrDefault(user, StatementCounters.NONE)));
			}
			List<Timer> rounds = new ArrayList<>();
			for (int i = 0; i < timersAfter.size(); i++) {
				rounds.add(timersAfter.get(i).since(timersBefore.get(i)));
			}
			int changes = changes(system, holdersBefore, holdersAfter);
			Map<String, Integer> failedStatements = new TreeMap<>();
			for (int i = 0; i < nodes.length; i++) {
				for (String line : nodes[i].logLinesSince(logPositions[i])) {
					if (FAILED.stream().anyMatch(line::contains)) {
						failedStatements.merge(statementOf(line), 1, Integer::sum);
					}
				}
			}
			log(system, size, "window: " + statements + ", changes of holder " + changes + ", rounds " + rounds
					+ ", failed statements " + failedStatements);
			Failover failover = killTheLeaderOfMost(system, size, nodes);
			log(system, size, "kill -9: " + failover);
			return new Point(system, size, allLed, (to - from) / 1000.0, statements, rounds, holdersAfter.size(),
					changes, failedStatements, failover, null);
		}
		catch (RuntimeException | SQLException ex) {
			log(system, size, "failed: " + ex);
			// The report's row says what did not hold, not which exception said it.
			return Point.failed(system, size,
					"did not hold: " + ((ex.getMessage() != null) ? ex.getMessage() : ex.toString()));
		}
		finally {
			for (Node node : nodes) {
				if (node != null) {
					node.close();
				}
			}
		}
	}

	/**
	 * The point of a system and size that is not run, with the reason.
	 * @param system the system
	 * @param size its size
	 * @param reason why not
	 * @return the point
	 */
	static Point notRun(SystemUnderTest system, int size, String reason) {
		return Point.failed(system, size, reason);
	}

	private List<String> arguments(SystemUnderTest system, int size) throws IOException {
		List<String> arguments = new ArrayList<>();
		arguments.add("--bench.scale=" + size);
		if (system == SystemUnderTest.OURS) {
			// 10,000 names are about 100 KB: too long for a command line, so a file.
			Path file = this.work.resolve("scale/elections-" + size + ".properties");
			Files.createDirectories(file.getParent());
			Files.writeString(file, "leader-election.elections="
					+ IntStream.range(0, size).mapToObj(ScaleBenchmark::electionName).collect(Collectors.joining(","))
					+ "\n", StandardCharsets.UTF_8);
			arguments.add("--spring.config.additional-location=file:" + file);
			arguments.add("--management.metrics.distribution.percentiles.leader.election.heartbeat=0.5,0.99");
			// Percentiles over the last minute or so: the window, not the start-up's
			// joins.
			arguments.add("--management.metrics.distribution.expiry.leader.election.heartbeat=60s");
		}
		return arguments;
	}

	static String electionName(int index) {
		return "scale-" + index;
	}

	/**
	 * Wait until every election or role has a holder, up to {@link #START_TIMEOUT} (then
	 * the point is measured as it is, and says so); ShedLock's locks have none between
	 * runs, so its nodes only need to have started.
	 * @return how long it took, or {@code null} if not every election had a holder in
	 * time
	 */
	private Duration awaitAllLed(SystemUnderTest system, int size, long startedAt)
			throws SQLException, InterruptedException {
		if (system != SystemUnderTest.SHEDLOCK) {
			long deadline = startedAt + START_TIMEOUT.toNanos();
			while (this.database.holders(system).size() < size) {
				if (System.nanoTime() > deadline) {
					return null;
				}
				Thread.sleep(200);
			}
		}
		return Duration.ofNanos(System.nanoTime() - startedAt);
	}

	/** The nodes' heartbeat timers (this starter only). */
	private List<Timer> timers(SystemUnderTest system, Node[] nodes) {
		List<Timer> timers = new ArrayList<>();
		if (system == SystemUnderTest.OURS) {
			for (Node node : nodes) {
				String metric = "/actuator/metrics/leader.election.heartbeat";
				Map<String, Double> success = values(node.get(metric + "?tag=outcome:success"));
				Map<String, Double> failure = values(node.get(metric + "?tag=outcome:failure"));
				double p50 = values(node.get(metric + ".percentile?tag=outcome:success&tag=phi:0.5"))
					.getOrDefault("VALUE", Double.NaN);
				double p99 = values(node.get(metric + ".percentile?tag=outcome:success&tag=phi:0.99"))
					.getOrDefault("VALUE", Double.NaN);
				timers.add(new Timer(success.getOrDefault("COUNT", 0.0).longValue(),
						success.getOrDefault("TOTAL_TIME", 0.0) * 1000, success.getOrDefault("MAX", 0.0) * 1000,
						p50 * 1000, p99 * 1000, failure.getOrDefault("COUNT", 0.0).longValue()));
			}
		}
		return timers;
	}

	/**
	 * The measurements of an {@code /actuator/metrics/...} answer.
	 * @param json the answer, or empty
	 * @return values by statistic ({@code COUNT}, {@code TOTAL_TIME}, {@code VALUE}, ...)
	 */
	static Map<String, Double> values(Optional<String> json) {
		Map<String, Double> values = new HashMap<>();
		json.ifPresent((body) -> {
			Matcher matcher = VALUE.matcher(body);
			while (matcher.find()) {
				values.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
			}
		});
		return values;
	}

	/**
	 * Count the elections whose holder changed between two looks: for this starter a
	 * changed term (or a lease no longer live), for Spring Integration another client or
	 * time of acquisition.
	 */
	private static int changes(SystemUnderTest system, Map<String, Holder> before, Map<String, Holder> after) {
		if (system == SystemUnderTest.SHEDLOCK) {
			return -1;
		}
		int changes = 0;
		for (Map.Entry<String, Holder> entry : before.entrySet()) {
			Holder later = after.get(entry.getKey());
			if (later == null || !later.holder().equals(entry.getValue().holder())
					|| later.term() != entry.getValue().term()) {
				changes++;
			}
		}
		return changes;
	}

	/**
	 * {@code kill -9} the node that holds the most, and poll until every one of its
	 * elections or roles has another holder (up to the lease plus a minute).
	 */
	private Failover killTheLeaderOfMost(SystemUnderTest system, int size, Node[] nodes)
			throws SQLException, InterruptedException {
		if (system == SystemUnderTest.SHEDLOCK) {
			return null;
		}
		Map<String, Holder> holders = this.database.holders(system);
		Map<String, Long> counts = holders.values()
			.stream()
			.collect(Collectors.groupingBy(Holder::holder, Collectors.counting()));
		Node victim = nodes[0];
		long most = -1;
		for (Node node : nodes) {
			long count = counts.getOrDefault(node.id(), 0L);
			if (count > most) {
				most = count;
				victim = node;
			}
		}
		String victimHolder = victim.id();
		Set<String> keys = holders.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().holder().equals(victimHolder))
			.map(Map.Entry::getKey)
			.collect(Collectors.toSet());
		long faultAt = this.database.now();
		victim.kill();
		long deadline = System.nanoTime() + this.settings.lease().plus(Duration.ofMinutes(1)).toNanos();
		while (System.nanoTime() < deadline) {
			Map<String, Holder> now = this.database.holders(system);
			long seenAt = this.database.now();
			boolean all = true;
			long lastAcquired = 0;
			for (String key : keys) {
				Holder holder = now.get(key);
				if (holder == null || holder.holder().equals(victimHolder)) {
					all = false;
					break;
				}
				lastAcquired = Math.max(lastAcquired, holder.acquiredAt());
			}
			if (all) {
				// This starter records when each new holder took over; otherwise the
				// poll's time.
				long at = (system == SystemUnderTest.OURS) ? lastAcquired : seenAt;
				return new Failover(victim.id(), keys.size(), OptionalLong.of(at - faultAt));
			}
			Thread.sleep(50);
		}
		return new Failover(victim.id(), keys.size(), OptionalLong.empty());
	}

	/**
	 * Name the heartbeat statement a line of a failure reports, by its SQL.
	 * @param line the log line
	 * @return a short name
	 */
	static String statementOf(String line) {
		if (line.contains("UPDATE leader_election_lease_nodes SET expires_at")) {
			return "refresh node";
		}
		if (line.contains("SELECT 0, n.node_id")) {
			return "read view";
		}
		return "other";
	}

	private static void log(SystemUnderTest system, int size, String message) {
		System.out.println("[scale " + system.label() + " " + size + "] " + message);
	}

	private static void sleep(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

	/**
	 * The heartbeat rounds of one node in a window (this starter).
	 *
	 * @param rounds successful rounds
	 * @param totalMillis their total time
	 * @param maxMillis the longest round of the timer's recent past
	 * @param p50Millis median of the timer's recent past (about the last minute)
	 * @param p99Millis 99th percentile of the same
	 * @param failed failed rounds
	 */
	record Timer(long rounds, double totalMillis, double maxMillis, double p50Millis, double p99Millis, long failed) {

		Timer since(Timer earlier) {
			return new Timer(this.rounds - earlier.rounds, this.totalMillis - earlier.totalMillis, this.maxMillis,
					this.p50Millis, this.p99Millis, this.failed - earlier.failed);
		}

		double meanMillis() {
			return (this.rounds > 0) ? this.totalMillis / this.rounds : Double.NaN;
		}

		@Override
		public String toString() {
			return String.format("%d rounds, mean %.1f ms, p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d failed",
					this.rounds, meanMillis(), this.p50Millis, this.p99Millis, this.maxMillis, this.failed);
		}

	}

	/**
	 * A {@code kill -9} of the node that held the most.
	 *
	 * @param victim the node killed
	 * @param held how many elections or roles it held
	 * @param allMovedMillis from the kill until the last of them had another holder;
	 * empty if not within the lease plus a minute
	 */
	record Failover(String victim, int held, OptionalLong allMovedMillis) {

	}

	/**
	 * One measured point.
	 *
	 * @param system the system
	 * @param size elections, roles or locks
	 * @param allLed from the start of the processes until every election had a holder, or
	 * {@code null} if not within {@link ScaleBenchmark#START_TIMEOUT}
	 * @param seconds length of the quiet window (database clock)
	 * @param statements statements of each node in the window, by slot
	 * @param rounds heartbeat rounds of each node in the window (this starter)
	 * @param held elections with a holder at the end of the window
	 * @param changes changes of holder in the window (-1: not applicable)
	 * @param failedStatements the statements whose failure began a time of "database
	 * unreachable" in the window, as this starter's nodes logged them, by statement
	 * @param failover the kill -9, or {@code null}
	 * @param failure why the point was not measured, or {@code null}
	 */
	record Point(SystemUnderTest system, int size, Duration allLed, double seconds, List<StatementCounters> statements,
			List<Timer> rounds, int held, int changes, Map<String, Integer> failedStatements, Failover failover,
			String failure) {

		static Point failed(SystemUnderTest system, int size, String failure) {
			return new Point(system, size, null, 0, List.of(), List.of(), 0, -1, Map.of(), null, failure);
		}

		/**
		 * @return statements per second of the node that sent the most
		 */
		double maxStatementsPerSecond() {
			return this.statements.stream().mapToLong(StatementCounters::total).max().orElse(0) / this.seconds;
		}

		/**
		 * @return statements per second of the node that sent the fewest
		 */
		double minStatementsPerSecond() {
			return this.statements.stream().mapToLong(StatementCounters::total).min().orElse(0) / this.seconds;
		}

	}

}
