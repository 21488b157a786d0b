package io.github.dbleader.election.lock;

import java.time.Duration;

import io.github.dbleader.election.it.ContractTables;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link LockRepositoryContract} on {@link JdbcLockRepository} on a database that each
 * subclass names, on tables of the subclass's own created afresh for each test, on a
 * stepped database clock ({@link ContractTables}).
 */
abstract class JdbcLockRepositoryContract extends LockRepositoryContract {

	private final ContractTables tables;

	/**
	 * The contract on a database.
	 * @param database the database
	 * @param prefix the start of the subclass's table names
	 */
	JdbcLockRepositoryContract(TestDatabase database, String prefix) {
		this.tables = new ContractTables(database, prefix + "_lock_contract");
	}

	@Override
	protected LockRepository createRepository() {
		return new JdbcLockRepository(
				new JdbcStore(this.tables.create(), this.tables.dialect(), this.tables.names(), Duration.ofSeconds(1)));
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
