package io.github.dbleader.election.partition;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link PartitionPinsContract} on MariaDB Connector/J on the MySQL-protocol test server.
 */
class MariaDbDriverPartitionPinsContractIntegrationTests extends JdbcPartitionPinsContract {

	MariaDbDriverPartitionPinsContractIntegrationTests() {
		super(TestDatabase.MARIADB, "mdb");
	}

}
