package io.github.dbleader.election.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The election's statement timeout on the connections of a pool that does not reset a
 * connection's network timeout when it comes back (DBCP2, Tomcat JDBC, c3p0, Agroal;
 * HikariCP does): the election's use must leave the connection's network timeout as it
 * found it, or the application's own queries on that connection would be cut off at the
 * election's statement timeout. Each test hands the election one physical connection
 * again and again, as such a pool does.
 */
class NetworkTimeoutDataSourceIntegrationTests {

	private static final LeaseTables TABLES = new LeaseTables("nt_test_lease", "nt_test_candidate");

	/**
	 * The application's own network timeout on its connections: none, the drivers'
	 * default.
	 */
	private static final int APPLICATION_TIMEOUT = 0;

	private SingleConnectionDataSource pool;

	@AfterEach
	void close() {
		if (this.pool != null) {
			this.pool.destroy();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void electionStatementsLeaveTheNetworkTimeoutOfAPooledConnectionAsTheyFoundIt(TestDatabase database)
			throws SQLException {
		SingleConnectionDataSource pool = pool(database);
		Duration statementTimeout = Duration.ofSeconds(1);
		JdbcLeaseRepository leases = new JdbcLeaseRepository(pool, dialect(database), TABLES, statementTimeout);
		JdbcLockRepository locks = new JdbcLockRepository(
				new JdbcStore(pool, dialect(database), TABLES, statementTimeout));
		restoredAfter(database, () -> leases.heartbeat("a", "a-1", Duration.ofSeconds(30), -1));
		// A change of holder: a transaction of the election's own.
		restoredAfter(database, () -> leases.create("e", "a", Duration.ofSeconds(30)));
		restoredAfter(database, () -> leases.find("e"));
		restoredAfter(database, () -> leases.readAll("a", "a-1"));
		restoredAfter(database, () -> locks.tryLock("report", "a", Duration.ofSeconds(30)));
		restoredAfter(database, locks::findLocks);
	}

	private SingleConnectionDataSource pool(TestDatabase database) throws SQLException {
		assumeTrue(database != TestDatabase.H2, "H2 ignores JDBC's network timeout (its URL sets one)");
		// suppressClose: close() leaves the physical connection open for the next
		// borrower.
		this.pool = new SingleConnectionDataSource(database.url(), database.username(), database.password(), true);
		database.dropTables(this.pool, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(this.pool, dialect(database), TABLES);
		try (Connection connection = this.pool.getConnection()) {
			connection.setNetworkTimeout(Runnable::run, APPLICATION_TIMEOUT);
		}
		return this.pool;
	}

	private static SqlDialect dialect(TestDatabase database) {
		return SqlDialect.forName(database.platform());
	}

	private void restoredAfter(TestDatabase database, Runnable use) throws SQLException {
		use.run();
		try (Connection connection = this.pool.getConnection()) {
			assertThat(connection.getNetworkTimeout()).as("network timeout on %s after the election's use", database)
				.isEqualTo(APPLICATION_TIMEOUT);
		}
	}

}
