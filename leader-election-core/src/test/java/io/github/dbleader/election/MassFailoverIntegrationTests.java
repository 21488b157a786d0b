package io.github.dbleader.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Mass failover on a real database: three nodes in this process, one leading a thousand
 * elections stops dead (no release, as {@code kill -9}), and the two others lead every
 * one of them within a lease, a renew interval and a second (L = 3 s, R = 500 ms, as the
 * benchmarks run): the take-overs go in batches, not one statement each.
 */
class MassFailoverIntegrationTests {

	private static final int ELECTIONS = 1_000;

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration RENEW = Duration.ofMillis(500);

	private static final ElectionSettings SETTINGS = ElectionSettings.of(LEASE, RENEW);

	private static final Duration BOUND = LEASE.plus(RENEW).plusSeconds(1);

	private static final Duration SETUP = Duration.ofSeconds(30);

	private static final LeaseTables TABLES = new LeaseTables("mass_test_lease", "mass_test_candidate");

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = "MARIADB")
	void everyElectionOfACrashedNodeIsLedElsewhereWithinALeaseARenewIntervalAndASecond(TestDatabase testDatabase)
			throws Exception {
		ElectionDatabase database = closeAfterTest(ElectionDatabase.of(testDatabase));
		HikariDataSource setup = closeAfterTest(database.dataSource("mass-setup", 1, (config) -> {
		}));
		database.recreateTables(setup, TABLES);
		List<String> names = IntStream.range(0, ELECTIONS).mapToObj((i) -> "mass-" + i).toList();
		seedVacantLeases(setup, names);
		ElectionService a = service(database, "a");
		names.forEach(a::election);
		a.start();
		await("a leads all " + ELECTIONS + " elections").atMost(SETUP)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> names.stream().allMatch((name) -> a.election(name).isLeader()));
		Map<String, Long> terms = new HashMap<>();
		names.forEach((name) -> terms.put(name, a.election(name).term()));
		ElectionService b = service(database, "b");
		ElectionService c = service(database, "c");
		for (ElectionService follower : List.of(b, c)) {
			names.forEach(follower::election);
			follower.start();
		}
		await("b and c have read every lease").atMost(SETUP)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> names.stream()
				.allMatch((name) -> b.election(name).lastSeenLease().isPresent()
						&& c.election(name).lastSeenLease().isPresent()));

		long crashed = System.nanoTime();
		a.halt();
		await("every election led by b or c").atMost(BOUND.plusSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> names.stream().allMatch((name) -> b.election(name).isLeader() || c.election(name).isLeader()));
		Duration failover = Duration.ofNanos(System.nanoTime() - crashed);
		System.out.printf(
				"[mass failover] %s: %d elections led elsewhere %d ms after the leader stopped (bound %d ms)%n",
				testDatabase, ELECTIONS, failover.toMillis(), BOUND.toMillis());
		assertThat(failover).isLessThanOrEqualTo(BOUND);
		for (String name : names) {
			Election byB = b.election(name);
			Election byC = c.election(name);
			assertThat(byB.isLeader() && byC.isLeader()).as("%s believed by b and c", name).isFalse();
			assertThat(a.election(name).isLeader()).as("%s still believed by a", name).isFalse();
			long term = byB.isLeader() ? byB.term() : byC.term();
			assertThat(term).as("%s's new term", name).isGreaterThan(terms.get(name));
		}
	}

	/**
	 * Insert the elections' rows vacant, in two statements, so that the first node takes
	 * them all in one batch: creating a thousand leases one transaction each would take
	 * seconds on InnoDB (a commit each).
	 */
	private static void seedVacantLeases(HikariDataSource dataSource, List<String> names) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		String rows = "(?, 1, 1, 0)" + ", (?, 1, 1, 0)".repeat(names.size() - 1);
		jdbc.update("INSERT INTO " + TABLES.leaseTable() + " (election_name, term, version, expires_at) VALUES " + rows,
				names.toArray());
		jdbc.update("INSERT INTO " + TABLES.fenceTable() + " (election_name, term) VALUES " + "(?, 1)"
				+ ", (?, 1)".repeat(names.size() - 1), names.toArray());
	}

	private ElectionService service(ElectionDatabase database, String nodeId) {
		HikariDataSource pool = closeAfterTest(database.dataSource("mass-" + nodeId, 2, (config) -> {
		}));
		JdbcLeaseRepository repository = new JdbcLeaseRepository(pool, database.dialect(), TABLES,
				SETTINGS.statementTimeout());
		ElectionService service = new ElectionService(repository, SETTINGS, nodeId, new LeadershipListener() {
		});
		// Stopped before its pool closes.
		this.resources.add(service::halt);
		return service;
	}

	private <T extends AutoCloseable> T closeAfterTest(T resource) {
		this.resources.add(resource);
		return resource;
	}

}
