package io.github.dbleader.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fault scenarios on a MariaDB Galera cluster: three processes of the sample application,
 * each connected (through its own proxy) to another node of the cluster, with the timing
 * of {@link FaultScenariosIntegrationTests} (L = 3 s, R = 500 ms). Each scenario checks
 * what every {@link Scenario} checks (no overlapping fenced runs of different holders, no
 * commit of a stale term, no exception in application code) and its own failover bound.
 * The lease monitor and the checks read causally ({@code wsrep_sync_wait = 1}) on the
 * first node, so they see at once what a process committed on another one.
 *
 * <p>
 * {@code LEADER_ELECTION_TEST_GALERA_URLS} lists the JDBC URL of each cluster node,
 * {@code _USERNAME} and {@code _PASSWORD} the user ({@code .ci/galera start} prints
 * them). Without the URLs the class does not run; with them, a node that cannot be
 * reached or is not a synced member of one cluster fails it. The last scenario kills a
 * node of the cluster: start the cluster again before running the class again.
 */
@EnabledIfEnvironmentVariable(named = GaleraFaultScenariosIntegrationTests.URLS, matches = ".+",
		disabledReason = "no Galera cluster: set " + GaleraFaultScenariosIntegrationTests.URLS + " (see .ci/galera)")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ForkUse(ForkUse.Mode.SHARED)
class GaleraFaultScenariosIntegrationTests {

	static final String URLS = "LEADER_ELECTION_TEST_GALERA_URLS";

	private static final long L = SampleNode.LEASE.toMillis();

	private static final long R = SampleNode.RENEW.toMillis();

	/**
	 * Slack for the job's first run after a change of leader: job interval, round trips,
	 * scheduling.
	 */
	private static final long SLACK = 1000;

	/**
	 * Slack for the cluster's eviction of a dead node beyond {@code evs.suspect_timeout}:
	 * the inactivity check that notices the timeout (up to
	 * {@code evs.inactive_check_period}, 1 s), the installation of the new view, and the
	 * statement timeout of the read that was waiting. Seen: 6.35 s and 6.47 s of stall
	 * with a 5 s timeout.
	 */
	private static final long STALL_SLACK = 2000;

	/**
	 * How much longer than a bound a wait goes on, so that a miss is measured rather than
	 * only reported.
	 */
	private static final Duration OBSERVE_BEYOND_BOUND = Duration.ofSeconds(5);

	private static final Pattern SUSPECT_TIMEOUT = Pattern.compile("evs\\.suspect_timeout = (PT[^;]+)");

	/** Each node of the cluster, where the processes connect in turn. */
	private static List<FaultDatabase> clusterNodes;

	/** Causal reads on the first node, for the monitor and the checks. */
	private static FaultDatabase observer;

	private static Cluster cluster;

	@BeforeAll
	static void startProcesses() {
		List<String> urls = Arrays.stream(System.getenv(URLS).split(",")).map(String::trim).toList();
		String username = variable("USERNAME", "root");
		String password = variable("PASSWORD", "");
		clusterNodes = urls.stream().map((url) -> FaultDatabase.at(url, username, password)).toList();
		List<String> states = new ArrayList<>();
		for (FaultDatabase node : clusterNodes) {
			states.add(clusterState(node));
		}
		if (urls.size() < 3 || states.stream().distinct().count() != 1) {
			throw new IllegalStateException(URLS + " must name three nodes of one Galera cluster, but " + urls
					+ " have cluster states " + states);
		}
		String first = urls.get(0);
		observer = FaultDatabase.at(first + (first.contains("?") ? "&" : "?") + "sessionVariables=wsrep_sync_wait=1",
				username, password);
		System.out.println("[test databases] Galera: " + urls.size() + " nodes of cluster " + states.get(0));
		cluster = Cluster.spreadOver(observer, clusterNodes);
		// One after the other: three JVMs starting at once on a busy two-core machine can
		// miss the sample's one-second connection timeout.
		for (int i = 0; i < clusterNodes.size(); i++) {
			cluster.start(1);
		}
	}

	@AfterAll
	static void stopProcesses() {
		if (cluster != null) {
			cluster.close();
		}
	}

	/**
	 * SIGSTOP of the leader for 2 L, right after the statement that puts the fence row
	 * into its fenced transaction's write set reached its cluster node. Row locks are
	 * local to that node: the take-over through another node does not wait for the frozen
	 * transaction, and once applied on the frozen leader's node it aborts that
	 * transaction (certification orders the two). A new leader's first run within L + R +
	 * 1 s; after SIGCONT the old leader commits nothing with its stale term and becomes a
	 * follower.
	 */
	@Test
	@Order(1)
	void leaderPausedInsideAFencedRunForLongerThanTheLeaseCommitsNothing() throws Exception {
		scenario("Galera: SIGSTOP of the leader inside a fenced transaction for 2 L, then SIGCONT",
				(scenario, leader) -> {
					long staleTerm = cluster.monitor().latest().orElseThrow().term();
					long pausedAt = awaitSuccessor(scenario, leader,
							"a leader frozen inside a fenced transaction is replaced within L + R + 1 s", L + R + SLACK,
							() -> pauseAfter(leader, "fenced_runs"));
					// the rest of the pause
					Thread.sleep(Math.max(0, pausedAt + 2 * L - observer.now()));
					long resumedAt = observer.now();
					long marksFrom = leader.log().mark();
					leader.resume();
					NodeLog.Transition revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(R + SLACK));
					assertThat(revoked.term()).as("the resumed node revokes its stale term").isEqualTo(staleTerm);
					// a resumed node that kept writing would show it now
					Thread.sleep(2 * R);
					assertThat(JobRuns.since(observer, pausedAt))
						.as("no fenced write of the stale term %d after the leader froze", staleTerm)
						.noneMatch((run) -> run.nodeId().equals(leader.id()) && run.term() == staleTerm);
					scenario.detail(leader.id() + " frozen after its fence write; revoked term " + staleTerm + " ("
							+ revoked.reason() + ") " + (revoked.atMillis() - resumedAt) + " ms after SIGCONT");
				});
	}

	/**
	 * {@code kill -9} of the leader: a successor on another cluster node runs within L +
	 * R + 1 s.
	 */
	@Test
	@Order(2)
	void killedLeaderIsReplacedWithinLeasePlusRenewInterval() throws Exception {
		scenario("Galera: kill -9 of the leader", (scenario, leader) -> awaitSuccessor(scenario, leader,
				"a killed leader is replaced within L + R + 1 s", L + R + SLACK, () -> {
					long killedAt = observer.now();
					leader.kill();
					return killedAt;
				}));
	}

	/**
	 * SIGTERM of the leader: it releases its lease, and a successor runs within R + 1 s.
	 */
	@Test
	@Order(3)
	void gracefulShutdownHandsOverWithinARenewInterval() throws Exception {
		scenario("Galera: SIGTERM of the leader", (scenario, leader) -> {
			awaitSuccessor(scenario, leader, "a successor runs within R + 1 s of SIGTERM", R + SLACK, () -> {
				long terminatedAt = observer.now();
				leader.terminate();
				return terminatedAt;
			});
			assertThat(leader.log().contains("released leadership of term"))
				.as("the leader released its lease on shutdown")
				.isTrue();
		});
	}

	/**
	 * {@code kill -9} of the {@code mariadbd} of the leader's cluster node. The leader
	 * reaches no database any more and stops believing at L − G; the surviving nodes
	 * stall writes until they evict the dead one, after {@code evs.suspect_timeout} (read
	 * from the server), and their causal reads wait as long. The followers keep watching
	 * the lease through the stall with their nodes' own data, so that a renewal they
	 * missed just before it does not start their whole-lease observation (I3) only after
	 * it: a new leader runs within L + R + that timeout + 1 s of the kill, as the
	 * followers' database answers again within that timeout + R + 2 s. The cluster keeps
	 * two nodes afterwards.
	 */
	@Test
	@Order(4)
	void deathOfTheLeadersDatabaseNodeGivesANewLeaderOnAnotherNode() throws Exception {
		// The checks read on the first node, which must survive.
		SampleNode leader = cluster.awaitSteady(clusterNodes.size());
		if (cluster.databaseOf(leader) == clusterNodes.get(0)) {
			SampleNode elsewhere = cluster.others(leader)
				.stream()
				.filter((node) -> cluster.databaseOf(node) != clusterNodes.get(0))
				.findFirst()
				.orElseThrow();
			leader.forceLeader(elsewhere.id());
			await("leadership moved off the first cluster node").atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptions()
				.until(() -> cluster.believers().equals(List.of(elsewhere)));
		}
		Duration suspectTimeout = suspectTimeout(observer);
		scenario("Galera: the leader's database node dies (kill -9 of its mariadbd)", (scenario, current) -> {
			FaultDatabase dying = cluster.databaseOf(current);
			assertThat(dying).as("the leader's cluster node is not the one the checks read")
				.isNotSameAs(clusterNodes.get(0));
			long pid = serverPid(dying);
			long marksFrom = current.log().mark();
			Map<String, Long> marks = new HashMap<>();
			cluster.others(current).forEach((node) -> marks.put(node.id(), node.log().mark()));
			// The surviving nodes answer again once they have evicted the dead one; the
			// followers watched the lease meanwhile, so one takes over at once.
			long stallBound = suspectTimeout.toMillis() + R + STALL_SLACK;
			long bound = L + R + suspectTimeout.toMillis() + SLACK;
			long killedAt = awaitSuccessor(scenario, current,
					"a new leader within L + R + evs.suspect_timeout (" + suspectTimeout + ") + 1 s", bound, () -> {
						long at = observer.now();
						asRoot("kill", "-9", Long.toString(pid));
						return at;
					});
			JobRuns.Run successorRun = JobRuns.first(observer, killedAt, (run) -> !run.nodeId().equals(current.id()))
				.orElseThrow();
			SampleNode successor = cluster.nodes()
				.stream()
				.filter((node) -> node.id().equals(successorRun.nodeId()))
				.findFirst()
				.orElseThrow();
			long mark = marks.getOrDefault(successor.id(), 0L);
			long answeredAgainAt = successor.log()
				.firstLine(mark, "database unreachable")
				.flatMap((unreachable) -> successor.log().firstLine(mark, "database reachable again"))
				.map(NodeLog.Line::atMillis)
				.orElse(killedAt);
			long stall = answeredAgainAt - killedAt;
			long afterStall = successorRun.startedAt() - answeredAgainAt;
			scenario.detail(successor.id() + "'s database answered again " + stall + " ms after the kill (bound "
					+ stallBound + "), its first run " + afterStall + " ms after that");
			assertThat(stall)
				.as("the surviving cluster nodes answer within evs.suspect_timeout + R + %d ms", STALL_SLACK)
				.isLessThanOrEqualTo(stallBound);
			NodeLog.Transition revoked = awaitRevocation(current, marksFrom, Duration.ofMillis(L));
			scenario.detail(current.id() + " lost its database node " + dying.address().getPort() + " and revoked ("
					+ revoked.reason() + ") " + (revoked.atMillis() - killedAt)
					+ " ms after the kill; evs.suspect_timeout " + suspectTimeout);
		});
	}

	private static void scenario(String title, Scenario.Body body) throws Exception {
		Scenario.run(title, cluster, clusterNodes.size(), body);
	}

	/**
	 * Inject a fault, then wait for the first job run of another node than the leader,
	 * record how long it took and check it against its bound.
	 * @param property the property the bound expresses, for the failure message
	 * @param fault injects the fault and returns its database time
	 * @return the database time of the fault
	 */
	private static long awaitSuccessor(Scenario scenario, SampleNode leader, String property, long boundMillis,
			Fault fault) throws Exception {
		long fromDbMillis = fault.inject();
		Predicate<JobRuns.Run> which = (run) -> !run.nodeId().equals(leader.id());
		JobRuns.Run[] first = new JobRuns.Run[1];
		await("first run of a successor").atMost(Duration.ofMillis(boundMillis).plus(OBSERVE_BEYOND_BOUND))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> {
				Optional<JobRuns.Run> run = JobRuns.first(observer, fromDbMillis, which);
				run.ifPresent((value) -> first[0] = value);
				return run.isPresent();
			});
		long millis = first[0].startedAt() - fromDbMillis;
		scenario.failover("first run of a successor (" + first[0].nodeId() + ")", millis, boundMillis);
		assertThat(millis).as(property).isLessThanOrEqualTo(boundMillis);
		return fromDbMillis;
	}

	/**
	 * Freeze a process (SIGSTOP) as soon as a statement of it that contains a fragment
	 * has reached its database, before it sees the reply.
	 * @return the database time of the freeze
	 */
	private static long pauseAfter(SampleNode node, String statementFragment) {
		AtomicLong pausedAt = new AtomicLong();
		node.proxy().onStatement(statementFragment, () -> {
			node.pause();
			pausedAt.set(observer.now());
		});
		return await(node.id() + " frozen right after a statement with '" + statementFragment + "' reached its node")
			.atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(pausedAt::get, (at) -> at != 0);
	}

	private static NodeLog.Transition awaitRevocation(SampleNode node, long logMark, Duration bound) {
		return await(node.id() + " logs the end of its leadership").atMost(bound.plus(OBSERVE_BEYOND_BOUND))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> node.log().transitions(logMark).stream().filter((t) -> !t.granted()).findFirst(),
					Optional::isPresent)
			.orElseThrow();
	}

	/**
	 * @return the cluster state UUID of a synced Galera node
	 */
	private static String clusterState(FaultDatabase node) {
		try (Connection connection = node.connect();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT @@wsrep_on, (SELECT variable_value FROM"
						+ " information_schema.global_status WHERE variable_name = 'WSREP_LOCAL_STATE_COMMENT'),"
						+ " (SELECT variable_value FROM information_schema.global_status"
						+ " WHERE variable_name = 'WSREP_CLUSTER_STATE_UUID')")) {
			rs.next();
			if (!rs.getBoolean(1) || !"Synced".equals(rs.getString(2))) {
				throw new IllegalStateException(node.url() + " is not a synced Galera node (wsrep_on=" + rs.getString(1)
						+ ", state " + rs.getString(2) + ")");
			}
			return rs.getString(3);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot reach Galera node " + node.url() + " named by " + URLS
					+ " (start a cluster with .ci/galera start): " + ex.getMessage(), ex);
		}
	}

	/**
	 * @return how long a Galera node waits before it suspects a silent peer, from its
	 * provider options
	 */
	private static Duration suspectTimeout(FaultDatabase node) throws SQLException {
		try (Connection connection = node.connect();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT @@wsrep_provider_options")) {
			rs.next();
			Matcher matcher = SUSPECT_TIMEOUT.matcher(rs.getString(1));
			assertThat(matcher.find()).as("evs.suspect_timeout in wsrep_provider_options").isTrue();
			return Duration.parse(matcher.group(1));
		}
	}

	/**
	 * @return the process id of a node's {@code mariadbd}, from its pid file (on this
	 * machine)
	 */
	private static long serverPid(FaultDatabase node) throws SQLException, IOException, InterruptedException {
		String pidFile;
		try (Connection connection = node.connect();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT @@pid_file")) {
			rs.next();
			pidFile = rs.getString(1);
		}
		return Long.parseLong(asRoot("cat", pidFile).trim());
	}

	/**
	 * Run a command, through {@code sudo} unless this JVM runs as root (the servers run
	 * as mysql).
	 */
	private static String asRoot(String... command) throws IOException, InterruptedException {
		List<String> line = new ArrayList<>();
		if (!"root".equals(System.getProperty("user.name"))) {
			line.addAll(List.of("sudo", "-n"));
		}
		line.addAll(List.of(command));
		Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException(line + " failed: " + output);
		}
		return output;
	}

	private static String variable(String suffix, String fallback) {
		String value = System.getenv("LEADER_ELECTION_TEST_GALERA_" + suffix);
		return (value != null) ? value : fallback;
	}

	@FunctionalInterface
	private interface Fault {

		long inject() throws Exception;

	}

}
