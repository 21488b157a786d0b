package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Candidacy;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LeaseSchema#create} against each real database: it holds no lock tied to a
 * session (invariants.md I8), and nodes that create or upgrade the tables at once all
 * succeed.
 */
class LeaseSchemaIntegrationTests {

	private static final LeaseTables TABLES = new LeaseTables("schema_test_lease", "schema_test_candidate");

	private static final int NODES = 4;

	private final ExecutorService nodes = Executors.newFixedThreadPool(NODES);

	private HikariDataSource dataSource;

	@AfterEach
	void close() throws InterruptedException {
		this.nodes.shutdownNow();
		assertThat(this.nodes.awaitTermination(70, TimeUnit.SECONDS)).isTrue();
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	/**
	 * A session that holds MySQL's named lock of the tables (a node that creates them, or
	 * a pooled connection on which a release failed) does not hold up the creation: the
	 * script's statements are idempotent, and a run that another run overtook is retried.
	 * With {@code GET_LOCK} the creation waited for it for 60 s and then failed.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB" })
	void creationDoesNotWaitForASessionsNamedLock(TestDatabase database) throws Exception {
		this.dataSource = database.dataSource(2);
		database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		SingleConnectionDataSource holder = new SingleConnectionDataSource(database.url(), database.username(),
				database.password(), true);
		try {
			JdbcTemplate holding = new JdbcTemplate(holder);
			assertThat(holding.queryForObject("SELECT GET_LOCK(?, 0)", Integer.class, "schema:" + TABLES.leaseTable()))
				.isOne();
			Future<?> creation = this.nodes.submit(() -> LeaseSchema.create(this.dataSource, SqlDialect.MYSQL, TABLES));
			creation.get(20, TimeUnit.SECONDS);
			assertTablesEmpty();
		}
		finally {
			holder.destroy();
		}
	}

	/**
	 * Nodes of a new release start together on tables of an earlier one: each adds the
	 * columns it finds missing, and those that another node added first are no failure.
	 * Not on H2, a database of one process, whose new sessions wait for another's
	 * {@code ALTER TABLE}.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB", "POSTGRESQL" })
	void nodesUpgradingTheTablesAtOnceAllSucceed(TestDatabase database) throws Exception {
		SqlDialect dialect = SqlDialect.forName(database.platform());
		this.dataSource = database.dataSource(NODES);
		for (int round = 0; round < 5; round++) {
			database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
			LeaseSchema.create(this.dataSource, dialect, TABLES);
			JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
			for (String column : List.of("version", "expires_at", "takeovers", "previous_instance", "previous_version",
					"node_rank")) {
				jdbc.execute("ALTER TABLE " + TABLES.nodesTable() + " DROP COLUMN " + column);
			}
			CyclicBarrier start = new CyclicBarrier(NODES);
			List<Future<?>> runs = new ArrayList<>();
			for (int node = 0; node < NODES; node++) {
				runs.add(this.nodes.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					LeaseSchema.create(this.dataSource, dialect, TABLES);
					return null;
				}));
			}
			for (Future<?> run : runs) {
				run.get(30, TimeUnit.SECONDS);
			}
			JdbcLeaseRepository repository = new JdbcLeaseRepository(this.dataSource, dialect, TABLES,
					Duration.ofSeconds(1));
			assertThat(repository.heartbeat("a", "a-1", Duration.ofSeconds(30), -1)).as("round %d", round)
				.isEqualTo(Candidacy.CREATED);
		}
	}

	private void assertTablesEmpty() {
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		for (String table : TABLES.allTables()) {
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class)).isZero();
		}
	}

}
