package io.github.dbleader.autoconfigure.locks;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.autoconfigure.ActuatorClient;
import io.github.dbleader.autoconfigure.TestApplication;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@code locks} endpoint over HTTP against the MySQL-protocol test database
 * ({@link TestDatabase#MYSQL}: MariaDB in CI). The application under test is node
 * {@code locks-a}; a {@link ClusterLocks} on the same tables plays node {@code locks-b},
 * whose lock an operator releases.
 */
class LocksEndpointIntegrationTests {

	private static final TestDatabase DATABASE = TestDatabase.MYSQL;

	private static final LeaseTables TABLES = new LeaseTables("boot_locks_lease", "boot_locks_candidate");

	private static HikariDataSource dataSource;

	private static ConfigurableApplicationContext application;

	private static ClusterLocks otherNode;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void start() {
		dataSource = DATABASE.dataSource(4);
		DATABASE.dropTables(dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(dataSource, SqlDialect.forName(DATABASE.platform()), TABLES);
		jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("DROP TABLE IF EXISTS boot_locks_work");
		jdbc.execute("CREATE TABLE boot_locks_work (id INT PRIMARY KEY)");
		// The release waits for the fenced transaction in flight within the statement
		// timeout, set well above the 700 ms the test holds it: the default (1 s, half
		// the renew interval) left a loaded machine 300 ms, and it answered 503.
		application = TestApplication.start(DATABASE, true, new Class<?>[0], "leader-election.node-id=locks-a",
				"leader-election.lease-duration=10s", "leader-election.renew-interval=2s",
				"leader-election.statement-timeout=1900ms", "leader-election.jdbc.table-name=" + TABLES.leaseTable(),
				"leader-election.jdbc.candidate-table-name=" + TABLES.candidateTable(),
				"leader-election.jdbc.initialize-schema=never", "management.endpoints.web.exposure.include=locks",
				"management.endpoint.locks.access=unrestricted");
		otherNode = new ClusterLocks(new JdbcLockRepository(
				new JdbcStore(dataSource, SqlDialect.forName(DATABASE.platform()), TABLES, Duration.ofSeconds(5))),
				"locks-b");
	}

	@AfterAll
	static void stop() {
		if (application != null) {
			application.close();
		}
		if (dataSource != null) {
			dataSource.close();
		}
	}

	/**
	 * The release waits for the holder's fenced transaction in flight, whose work
	 * commits; then the holder's fenced work is refused, and the lock is free with a
	 * greater term.
	 */
	@Test
	void releaseWaitsForTheFencedTransactionInFlightThenFencesTheHolderOut() throws Exception {
		HeldLock stuck = otherNode.tryLock("stuck", Duration.ofMinutes(5), Duration.ZERO).orElseThrow();
		CountDownLatch inFence = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<Void> fenced = CompletableFuture.runAsync(() -> stuck.runFenced((term) -> {
			jdbc.update("INSERT INTO boot_locks_work (id) VALUES (1)");
			inFence.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> finish.getCount() == 0);
			return null;
		}));
		assertThat(inFence.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<HttpResponse<String>> release = CompletableFuture.supplyAsync(() -> {
			try {
				return client().send("DELETE", "/stuck", null);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2)).until(() -> !release.isDone());
		finish.countDown();
		fenced.get(10, TimeUnit.SECONDS);
		HttpResponse<String> released = release.get(10, TimeUnit.SECONDS);
		assertThat(released.statusCode()).isEqualTo(200);
		long term = ((Number) JsonPath.read(released.body(), "$.term")).longValue();
		assertThat(term).isGreaterThan(stuck.term());
		assertThat(jdbc.queryForList("SELECT id FROM boot_locks_work", Integer.class)).containsExactly(1);
		assertThatExceptionOfType(LockNotHeldException.class)
			.isThrownBy(() -> stuck.runFenced((t) -> jdbc.update("INSERT INTO boot_locks_work (id) VALUES (2)")));
		assertThat(jdbc.queryForList("SELECT id FROM boot_locks_work", Integer.class)).containsExactly(1);
		HttpResponse<String> read = client().send("GET", "/stuck", null);
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat((Boolean) JsonPath.read(read.body(), "$.held")).isFalse();
		assertThat(((Number) JsonPath.read(read.body(), "$.term")).longValue()).isEqualTo(term);
		assertThat(otherNode.tryLock("stuck", Duration.ofSeconds(30), Duration.ZERO).orElseThrow().term())
			.isGreaterThan(term);
	}

	@Test
	void listsTheLocksAndTheRunsOfThisNode() throws Exception {
		ClusterLocks here = application.getBean(ClusterLocks.class);
		here.runLocked("listed", Duration.ofSeconds(30), Duration.ZERO, true, (lock) -> {
		});
		HttpResponse<String> response = client().send("GET", "", null);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(response.body(), "$.nodeId")).isEqualTo("locks-a");
		assertThat((String) JsonPath.read(response.body(), "$.locks.listed.lastHolder")).isEqualTo("locks-a");
		assertThat((String) JsonPath.read(response.body(), "$.locks.listed.recentRuns[0].outcome"))
			.isEqualTo("COMPLETED");
		HttpResponse<String> unknown = client().send("GET", "/never-taken", null);
		assertThat(unknown.statusCode()).isEqualTo(404);
		assertThat((String) JsonPath.read(unknown.body(), "$.message")).startsWith("Lock 'never-taken' is unknown");
		String tooLong = "x".repeat(ClusterLocks.MAX_NAME_LENGTH + 1);
		for (String method : List.of("GET", "DELETE")) {
			HttpResponse<String> invalid = client().send(method, "/" + tooLong, null);
			assertThat(invalid.statusCode()).isEqualTo(400);
			assertThat((String) JsonPath.read(invalid.body(), "$.message")).isEqualTo("lock name '" + tooLong + "' is "
					+ tooLong.length() + " characters long; at most " + ClusterLocks.MAX_NAME_LENGTH + " are allowed");
		}
		// Nothing to release: no content, as for any actuator operation that returns
		// nothing.
		assertThat(client().send("DELETE", "/never-taken", null).statusCode()).isEqualTo(204);
	}

	private static ActuatorClient client() {
		return new ActuatorClient(application, "local.server.port", "/actuator/locks");
	}

}
