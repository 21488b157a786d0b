package io.github.dbleader.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LeaderElectionDataSourceScriptDatabaseInitializer} on a new database, run by
 * several nodes at the same instant, as a first deploy of several replicas does: every
 * node's script succeeds and the tables work. Without serialisation, PostgreSQL fails
 * most rounds
 * ({@code duplicate key value violates unique constraint "pg_type_typname_nsp_index"}).
 */
class LeaderElectionDataSourceScriptDatabaseInitializerIntegrationTests {

	private static final int NODES = 4;

	private static final int ROUNDS = 10;

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void nodesCreatingTheTablesAtOnceAllSucceed(TestDatabase database) throws Exception {
		SqlDialect dialect = SqlDialect.forName(database.platform());
		ExecutorService nodes = Executors.newFixedThreadPool(NODES);
		try (HikariDataSource dataSource = database.dataSource(NODES)) {
			for (int round = 0; round < ROUNDS; round++) {
				// Fresh tables each round: names of this round only.
				String prefix = "si" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
				LeaseTables tables = new LeaseTables(prefix + "_lease", prefix + "_candidate");
				CyclicBarrier start = new CyclicBarrier(NODES);
				List<Future<Boolean>> runs = new ArrayList<>();
				for (int node = 0; node < NODES; node++) {
					LeaderElectionDataSourceScriptDatabaseInitializer initializer = new LeaderElectionDataSourceScriptDatabaseInitializer(
							dataSource, DatabaseInitializationMode.ALWAYS, dialect, tables);
					runs.add(nodes.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return initializer.initializeDatabase();
					}));
				}
				try {
					for (Future<Boolean> run : runs) {
						assertThat(run.get(30, TimeUnit.SECONDS)).as("round %d", round).isTrue();
					}
					JdbcTemplate jdbc = new JdbcTemplate(dataSource);
					for (String table : tables.allTables()) {
						assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class)).isZero();
					}
				}
				finally {
					database.dropTables(dataSource, tables.allTables().toArray(String[]::new));
				}
			}
		}
		finally {
			nodes.shutdownNow();
			assertThat(nodes.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
	}

}
