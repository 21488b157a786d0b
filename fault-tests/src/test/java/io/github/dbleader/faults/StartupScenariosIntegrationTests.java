package io.github.dbleader.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.test.NodeProcess;
import io.github.dbleader.test.TcpProxy;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Start-up never fails on timing (issue #26), with processes of the sample application:
 * <ul>
 * <li>three nodes started at the same instant on a new database (tables of their own,
 * named for the round) all come up, and exactly one leads, on MariaDB and PostgreSQL, for
 * {@code fault.startup-rounds} rounds (2 by default, to keep CI within its budget);</li>
 * <li>a node started while its database is cut off (a {@link TcpProxy} that lets nothing
 * through, for 20 s) comes up within its normal start time, reports that it waits for its
 * database (leader endpoint and health), runs no leader-only work, and leads within
 * {@code L + R} of the database answering, plus the back-off of its connection pool
 * ({@link #POOL_BACK_OFF}); a baseline node then follows it.</li>
 * </ul>
 */
@ForkUse(ForkUse.Mode.SHARED)
class StartupScenariosIntegrationTests {

	private static final int ROUNDS = Integer.getInteger("fault.startup-rounds", 2);

	private static final int NODES = 3;

	/** Longest wait for a process to start on a busy two-core machine. */
	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	/** How long the database stays cut off from the node that starts meanwhile. */
	private static final Duration OUTAGE = Duration.ofSeconds(20);

	/** A round trip and the first statements after the database answers. */
	private static final Duration SLACK = Duration.ofSeconds(1);

	/**
	 * Longest pause of HikariCP between two attempts to open a connection after failures
	 * (its back-off doubles up to 5 s, and cannot be set): a pool that has failed for a
	 * while may open its first connection that much after the database answers.
	 */
	private static final Duration POOL_BACK_OFF = Duration.ofSeconds(5);

	private static final Pattern STARTED_IN = Pattern.compile("Started SampleApplication in ([0-9.]+) seconds");

	private static final JsonMapper json = JsonMapper.builder().build();

	private final Path jar = Path
		.of(System.getProperty("fault.sample-jar", "../sample-app/target/sample-app-0.1.0-SNAPSHOT.jar"));

	private final Path logDirectory = ForkLock.workDirectory().resolve("startup");

	/**
	 * Prepared before any test begins, so that no start it times includes the
	 * preparation.
	 */
	private final SampleLaunch launch = SampleLaunch.of(this.jar);

	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "POSTGRESQL" })
	void nodesStartedAtOnceOnANewDatabaseAllComeUpAndOneLeads(TestDatabase database) throws IOException {
		assertThat(this.jar).as("the sample's executable jar").isRegularFile();
		for (int round = 1; round <= ROUNDS; round++) {
			Tables tables = Tables.fresh();
			List<NodeProcess> nodes = new ArrayList<>();
			try {
				// Started back to back, without waiting for one another.
				for (int i = 0; i < NODES; i++) {
					nodes.add(start(database.name().toLowerCase(Locale.ROOT) + "-" + round + "-" + (char) ('a' + i),
							database.url(), database, tables, List.of()));
				}
				await("round " + round + ": every node up").atMost(START_TIMEOUT)
					.pollInterval(Duration.ofMillis(200))
					.until(() -> nodes.stream().allMatch(NodeProcess::isReady));
				await("round " + round + ": one leader").atMost(SampleNode.LEASE.plus(SampleNode.RENEW).plus(SLACK))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> leaders(nodes).size() == 1);
				String leader = leaders(nodes).get(0);
				for (NodeProcess node : nodes) {
					assertThat(node.isAlive()).as("%s alive", node).isTrue();
					assertThat(election(node).get("leader").asString()).as("leader as %s sees it", node)
						.isEqualTo(leader);
				}
				System.out.printf("[startup] %s round %d of %d: %d nodes up, %s leads%n", database, round, ROUNDS,
						NODES, leader);
			}
			finally {
				nodes.forEach(NodeProcess::close);
				tables.drop(database);
			}
		}
	}

	@Test
	void nodeStartedWhileItsDatabaseIsCutOffComesUpWaitsAndLeadsWithinLPlusROfItsAnswer() throws Exception {
		TestDatabase database = TestDatabase.MYSQL;
		FaultDatabase server = FaultDatabase.fromEnvironment();
		Tables tables = Tables.fresh();
		try (TcpProxy proxy = TcpProxy.start("startup-cut", server.address())) {
			proxy.cut(TcpProxy.Outage.BLACKHOLE);
			long cutAt = System.nanoTime();
			// Health answers within a bounded time while the database is away: pool wait
			// 1 s.
			List<String> shortPoolWait = List.of("--spring.datasource.hikari.connection-timeout=1000");
			NodeProcess node = start("startup-cut", server.urlThrough(proxy.port()), database, tables, shortPoolWait);
			try (node) {
				await("node up while its database is cut off").atMost(START_TIMEOUT)
					.pollInterval(Duration.ofMillis(200))
					.until(node::isReady);
				assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).as("started before the database answered")
					.isLessThan(START_TIMEOUT);
				await("the wait reported").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(200))
					.until(() -> json.readTree(node.send(node.request("/actuator/leader").GET(), 200))
						.get("waitingForDatabase")
						.asBoolean());
				HttpResponse<String> health = node.exchange(node.request("/actuator/health").GET());
				assertThat(health.statusCode()).isEqualTo(503);
				assertThat(health.body()).contains("waiting for the database: the election has not started");
				// Until the outage ends: never a leader, its leader-only job skipped
				// every time.
				Duration left = OUTAGE.minus(Duration.ofNanos(System.nanoTime() - cutAt));
				if (!left.isNegative()) {
					await("no leadership while cut off").during(left)
						.atMost(left.plus(Duration.ofSeconds(5)))
						.pollInterval(Duration.ofMillis(200))
						.until(() -> !election(node).get("thisNodeLeads").asBoolean());
				}
				double skipped = meter(node, "leader.election.leader.only.skipped", "election:default");
				assertThat(skipped).as("leader-only job calls skipped while waiting").isPositive();
				long restoredAt = System.nanoTime();
				long restoredAtDatabase = server.now();
				proxy.restore();
				await("leads within L + R of the database answering, plus the pool's back-off")
					.atMost(SampleNode.LEASE.plus(SampleNode.RENEW).plus(POOL_BACK_OFF).plus(SLACK))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> election(node).get("thisNodeLeads").asBoolean());
				Duration toLead = Duration.ofNanos(System.nanoTime() - restoredAt);
				assertThat(json.readTree(node.send(node.request("/actuator/leader").GET(), 200))
					.get("waitingForDatabase")
					.asBoolean()).isFalse();
				// Its job runs only now, as leader: no run began before the database
				// answered.
				await("a job run as leader").atMost(Duration.ofSeconds(10))
					.until(() -> !JobRuns.since(server, tables.jobRuns(), 0).isEmpty());
				assertThat(JobRuns.since(server, tables.jobRuns(), 0))
					.allSatisfy((run) -> assertThat(run.startedAt()).isGreaterThanOrEqualTo(restoredAtDatabase));
				// A node started with the database up, for the normal start time; it
				// follows.
				NodeProcess baseline = start("startup-baseline", database.url(), database, tables, shortPoolWait);
				try (baseline) {
					await("baseline node up").atMost(START_TIMEOUT)
						.pollInterval(Duration.ofMillis(200))
						.until(baseline::isReady);
					await("baseline follows").atMost(SampleNode.RENEW.plus(SLACK))
						.until(() -> election(baseline).get("leader").asString().equals("startup-cut"));
					double cutStart = startedIn(node);
					double normalStart = startedIn(baseline);
					System.out.printf("[startup] cut-off node started in %.1f s (baseline %.1f s), led %d ms after "
							+ "the database answered%n", cutStart, normalStart, toLead.toMillis());
					assertThat(cutStart).as("start time with the database cut off, against %.1f s", normalStart)
						.isLessThanOrEqualTo(normalStart + 5);
				}
			}
		}
		finally {
			tables.drop(database);
		}
	}

	/**
	 * Start a sample process with the sample's own settings, but for timings and tables.
	 */
	private NodeProcess start(String id, String url, TestDatabase database, Tables tables, List<String> arguments)
			throws IOException {
		int port = NodeProcess.freePort();
		return this.launch.process()
			.arguments("--server.port=" + port, "--leader-election.node-id=" + id, "--spring.datasource.url=" + url,
					"--spring.datasource.username=" + database.username(),
					"--spring.datasource.password=" + database.password(),
					"--leader-election.lease-duration=" + SampleNode.LEASE.toMillis() + "ms",
					"--leader-election.renew-interval=" + SampleNode.RENEW.toMillis() + "ms",
					"--leader-election.jdbc.initialize-schema=always",
					"--leader-election.jdbc.table-name=" + tables.lease().leaseTable(),
					"--leader-election.jdbc.candidate-table-name=" + tables.lease().candidateTable(),
					"--sample.job-runs-table=" + tables.jobRuns(),
					"--sample.lock-job-runs-table=" + tables.prefix() + "_lock_runs",
					"--sample.partition-job-runs-table=" + tables.prefix() + "_partition_runs",
					"--sample.job-interval=100ms", "--sample.lock-job-cron=-", "--spring.profiles.active=no-partitions",
					"--spring.main.banner-mode=off")
			.arguments(arguments)
			.httpPort(port)
			.readyWhenLogged("Started SampleApplication")
			.readyWhenHttpOk("/actuator/leader/default")
			.start(id, this.logDirectory.resolve(id + ".log"));
	}

	private static List<String> leaders(List<NodeProcess> nodes) {
		return nodes.stream()
			.filter((node) -> election(node).get("thisNodeLeads").asBoolean())
			.map(NodeProcess::name)
			.toList();
	}

	private static JsonNode election(NodeProcess node) {
		return json.readTree(node.send(node.request("/actuator/leader/default").GET(), 200));
	}

	private static double meter(NodeProcess node, String name, String tag) {
		HttpResponse<String> response = node.exchange(node.request("/actuator/metrics/" + name + "?tag=" + tag).GET());
		return (response.statusCode() == 404) ? 0
				: json.readTree(response.body()).get("measurements").get(0).get("value").asDouble();
	}

	private static double startedIn(NodeProcess node) {
		try {
			Matcher matcher = STARTED_IN.matcher(Files.readString(node.log().file()));
			assertThat(matcher.find()).as("%s logged its start time", node).isTrue();
			return Double.parseDouble(matcher.group(1));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Tables of one round: named for it, so that every round starts on a new database.
	 */
	private record Tables(String prefix, LeaseTables lease) {

		static Tables fresh() {
			String prefix = "su" + UUID.randomUUID().toString().substring(0, 8);
			return new Tables(prefix, new LeaseTables(prefix + "_lease", prefix + "_candidate"));
		}

		String jobRuns() {
			return this.prefix + "_runs";
		}

		void drop(TestDatabase database) {
			List<String> all = new ArrayList<>(this.lease.allTables());
			all.addAll(List.of(jobRuns(), this.prefix + "_lock_runs", this.prefix + "_partition_runs"));
			try (HikariDataSource dataSource = database.dataSource(1)) {
				database.dropTables(dataSource, all.toArray(String[]::new));
			}
		}

	}

}
