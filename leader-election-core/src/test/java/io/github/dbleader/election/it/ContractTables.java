package io.github.dbleader.election.it;

import java.time.Duration;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import org.jspecify.annotations.Nullable;

/**
 * The tables a repository contract runs its tests on: tables of the test class's own,
 * created afresh for each test (the integration test JVMs run classes side by side on the
 * same servers), on a pool whose connections see the database clock moved by a
 * {@link SteppedDatabaseClock}. The pool has room for the repository's statements while
 * fenced work holds a connection.
 */
public final class ContractTables {

	private final TestDatabase database;

	private final LeaseTables names;

	private final SqlDialect dialect;

	private @Nullable HikariDataSource pool;

	private @Nullable SteppedDatabaseClock clock;

	/**
	 * Tables on a database.
	 * @param database the database
	 * @param prefix the start of the test class's table names
	 */
	public ContractTables(TestDatabase database, String prefix) {
		this.database = database;
		this.names = new LeaseTables(prefix + "_lease", prefix + "_candidate");
		this.dialect = SqlDialect.forName(database.platform());
	}

	/**
	 * Create the tables afresh, for a test; {@link #close} them after it.
	 * @return connections on the stepped database clock
	 */
	public DataSource create() {
		HikariDataSource pool = this.database.dataSource(4);
		this.pool = pool;
		this.database.dropTables(pool, this.names.allTables().toArray(String[]::new));
		LeaseSchema.create(pool, this.dialect, this.names);
		SteppedDatabaseClock clock = SteppedDatabaseClock.on(this.dialect, pool);
		this.clock = clock;
		return clock.dataSource(pool);
	}

	/**
	 * @return the tables' names
	 */
	public LeaseTables names() {
		return this.names;
	}

	/**
	 * @return the database's dialect
	 */
	public SqlDialect dialect() {
		return this.dialect;
	}

	/**
	 * Step the database clock, for the connections handed out from now on.
	 * @param by how far, forward if positive
	 */
	public void step(Duration by) {
		if (this.clock == null) {
			throw new IllegalStateException("the tables were not created");
		}
		this.clock.step(by);
	}

	/** Close the clock and the pool of the last test, if any. */
	public void close() {
		SteppedDatabaseClock clock = this.clock;
		HikariDataSource pool = this.pool;
		this.clock = null;
		this.pool = null;
		try {
			if (clock != null) {
				clock.close();
			}
		}
		finally {
			if (pool != null) {
				pool.close();
			}
		}
	}

}
