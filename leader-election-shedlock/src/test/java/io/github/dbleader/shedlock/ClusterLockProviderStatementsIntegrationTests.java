package io.github.dbleader.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.test.TestDatabase;
import io.github.dbleader.test.WireStatements;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a run of a {@code @SchedulerLock} task on {@link ClusterLockProvider} costs, in
 * statements the server runs (read off the wire, {@link WireStatements}), as in the lock
 * benchmark's column for ShedLock's annotations on this provider: three nodes try the
 * lock for each trigger; the node that gets it records the run in
 * {@link SchedulerLockContext#runFenced} (a read of the database clock and an insert) and
 * unlocks; the two others find it taken. In steady state: every node has seen the lock's
 * row and holds open connections. Issue 39: no more than a {@code @ClusterLock} run, ten.
 */
class ClusterLockProviderStatementsIntegrationTests {

	private static final int MAX_STATEMENTS_PER_RUN = 10;

	private static final int RUNS = 6;

	/** The job's record of a run, as the benchmark's. */
	private static final String RUN_COLUMNS = "node_id VARCHAR(64) NOT NULL, term BIGINT NOT NULL,"
			+ " started_at BIGINT NOT NULL, finished_at BIGINT NOT NULL";

	private static final LeaseTables TABLES = new LeaseTables("provider_cost_lease", "provider_cost_candidate");

	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB", "POSTGRESQL" })
	void aRunOfASchedulerLockTaskCostsAtMostTenStatementsOverThreeNodes(TestDatabase database) throws Exception {
		SqlDialect dialect = SqlDialect.forName(database.platform());
		try (HikariDataSource direct = database.dataSource(1); WireStatements wire = WireStatements.through(database)) {
			database.dropTables(direct, TABLES.allTables().toArray(String[]::new));
			LeaseSchema.create(direct, dialect, TABLES);
			database.recreateTable(direct, "provider_cost_runs", RUN_COLUMNS);
			List<Node> nodes = List.of(node(wire, dialect, "a"), node(wire, dialect, "b"), node(wire, dialect, "c"));

			// Warm-up: every node gets the lock once (it sees the row, its pools
			// connect).
			WireStatements.Measurement cost = wire.measure(nodes.size(), RUNS,
					(i) -> run(nodes.get(i % nodes.size()), nodes));
			System.out.printf("%s, @SchedulerLock: %s%n", database, cost);
			assertThat(cost.perRun()).as("statements per run, three nodes, the job's two included (printed above)")
				.isLessThanOrEqualTo(MAX_STATEMENTS_PER_RUN);
		}
	}

	/**
	 * One trigger: the winner gets the lock; the two others find it taken; the run
	 * records itself in a fenced transaction and unlocks.
	 */
	private static void run(Node winner, List<Node> nodes) {
		SimpleLock lock = winner.provider().lock(configuration()).orElseThrow();
		try {
			for (Node other : nodes) {
				if (other != winner) {
					assertThat(other.provider().lock(configuration())).as("%s while %s runs", other.id(), winner.id())
						.isEqualTo(Optional.empty());
				}
			}
			SchedulerLockContext.runFenced((term) -> {
				Long startedAt = winner.jdbc().queryForObject("SELECT " + winner.clock(), Long.class);
				return winner.jdbc()
					.update("INSERT INTO provider_cost_runs (node_id, term, started_at, finished_at)"
							+ " VALUES (?, ?, ?, " + winner.clock() + ")", winner.id(), term, startedAt);
			});
		}
		finally {
			lock.unlock();
		}
	}

	private static LockConfiguration configuration() {
		return new LockConfiguration(Instant.now(), "job", Duration.ofSeconds(30), Duration.ZERO);
	}

	private static Node node(WireStatements wire, SqlDialect dialect, String id) {
		HikariDataSource application = wire.dataSource(2);
		JdbcLockRepository repository = new JdbcLockRepository(new JdbcStore(wire.dataSource(2),
				new JdbcTransactionManager(application), application, dialect, TABLES, Duration.ofSeconds(2)));
		return new Node(id, new ClusterLockProvider(new ClusterLocks(repository, id)), new JdbcTemplate(application),
				dialect.currentTimeMillis());
	}

	private record Node(String id, ClusterLockProvider provider, JdbcTemplate jdbc, String clock) {
	}

}
