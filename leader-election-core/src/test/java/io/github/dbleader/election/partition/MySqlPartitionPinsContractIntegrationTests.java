package io.github.dbleader.election.partition;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link PartitionPinsContract} on MySQL Connector/J on the MySQL-protocol test server.
 */
class MySqlPartitionPinsContractIntegrationTests extends JdbcPartitionPinsContract {

	MySqlPartitionPinsContractIntegrationTests() {
		super(TestDatabase.MYSQL, "my");
	}

}
