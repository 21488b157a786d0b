package io.github.dbleader.election.partition;

import io.github.dbleader.test.TestDatabase;

/** {@link PartitionPinsContract} on PostgreSQL. */
class PostgreSqlPartitionPinsContractIntegrationTests extends JdbcPartitionPinsContract {

	PostgreSqlPartitionPinsContractIntegrationTests() {
		super(TestDatabase.POSTGRESQL, "pg");
	}

}
