package io.github.dbleader.election;

import java.time.Duration;

import io.github.dbleader.election.it.ContractTables;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link LeaseRepositoryContract} on {@link JdbcLeaseRepository} on a database that each
 * subclass names, on tables of the subclass's own created afresh for each test, on a
 * stepped database clock ({@link ContractTables}).
 */
abstract class JdbcLeaseRepositoryContract extends LeaseRepositoryContract {

	/**
	 * Not whole seconds, as with most settings: the query timeout is rounded up to them,
	 * so a statement that waits is ended by the client's socket timeout first.
	 */
	private static final Duration STATEMENT_TIMEOUT = Duration.ofMillis(1500);

	private final ContractTables tables;

	/**
	 * The contract on a database.
	 * @param database the database
	 * @param prefix the start of the subclass's table names
	 */
	JdbcLeaseRepositoryContract(TestDatabase database, String prefix) {
		this.tables = new ContractTables(database, prefix + "_contract");
	}

	@Override
	protected LeaseRepository createRepository() {
		return new JdbcLeaseRepository(this.tables.create(), this.tables.dialect(), this.tables.names(),
				STATEMENT_TIMEOUT);
	}

	@Override
	protected void advanceDatabaseClock(Duration by) {
		this.tables.step(by);
	}

	@AfterEach
	void close() {
		this.tables.close();
	}

}
