package io.github.dbleader.election.partition;

import java.time.Duration;

import io.github.dbleader.election.it.ContractTables;
import io.github.dbleader.election.jdbc.JdbcPartitionPins;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link PartitionPinsContract} on {@link JdbcPartitionPins} on a database that each
 * subclass names, on tables of the subclass's own created afresh for each test.
 */
abstract class JdbcPartitionPinsContract extends PartitionPinsContract {

	private final ContractTables tables;

	/**
	 * The contract on a database.
	 * @param database the database
	 * @param prefix the start of the subclass's table names
	 */
	JdbcPartitionPinsContract(TestDatabase database, String prefix) {
		this.tables = new ContractTables(database, prefix + "_pins");
	}

	@Override
	protected PartitionPins createPins() {
		return new JdbcPartitionPins(
				new JdbcStore(this.tables.create(), this.tables.dialect(), this.tables.names(), Duration.ofSeconds(2)));
	}

	@AfterEach
	void close() {
		this.tables.close();
	}

}
