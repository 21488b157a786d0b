package io.github.dbleader.election;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LeaseRepositoryContract} on the MySQL-protocol test server through MySQL
 * Connector/J ({@code LEADER_ELECTION_TEST_MYSQL_URL}, see
 * {@link MySqlElectionIntegrationTests}).
 */
class MySqlLeaseRepositoryContractIntegrationTests extends JdbcLeaseRepositoryContract {

	MySqlLeaseRepositoryContractIntegrationTests() {
		super(TestDatabase.MYSQL, "my");
	}

}
