package io.github.dbleader.election;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.it.SteppedDatabaseClock;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link LeaseRepositoryContract} on {@link JdbcLeaseRepository} on a database that each
 * subclass names, on tables of the subclass's own created afresh for each test (the
 * integration test JVMs run classes side by side on the same servers). The database clock
 * moves by a {@link SteppedDatabaseClock}; the pool has room for the election's statements
 * while fenced work holds a connection.
 */
abstract class JdbcLeaseRepositoryContract extends LeaseRepositoryContract {

	/**
	 * Not whole seconds, as with most settings: the query timeout is rounded up to them, so
	 * a statement that waits is ended by the client's socket timeout first.
	 */
	private static final Duration STATEMENT_TIMEOUT = Duration.ofMillis(1500);

	private final TestDatabase database;

	private final LeaseTables tables;

	private HikariDataSource dataSource;

	private SteppedDatabaseClock clock;

	/**
	 * The contract on a database.
	 * @param database the database
	 * @param prefix the start of the subclass's table names
	 */
	JdbcLeaseRepositoryContract(TestDatabase database, String prefix) {
		this.database = database;
		this.tables = new LeaseTables(prefix + "_contract_lease", prefix + "_contract_candidate");
	}

	@Override
	protected LeaseRepository createRepository() {
		this.dataSource = this.database.dataSource(4);
		this.database.dropTables(this.dataSource, this.tables.allTables().toArray(String[]::new));
		SqlDialect dialect = SqlDialect.forName(this.database.platform());
		LeaseSchema.create(this.dataSource, dialect, this.tables);
		this.clock = SteppedDatabaseClock.on(dialect, this.dataSource);
		return new JdbcLeaseRepository(this.clock.dataSource(this.dataSource), dialect, this.tables,
				STATEMENT_TIMEOUT);
	}

	@Override
	protected void advanceDatabaseClock(Duration by) {
		this.clock.step(by);
	}

	@AfterEach
	void close() {
		if (this.clock != null) {
			this.clock.close();
		}
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

}
