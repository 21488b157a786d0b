package io.github.dbleader.election.lock;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LockRepositoryContract} on the MySQL-protocol test server through MySQL
 * Connector/J ({@code LEADER_ELECTION_TEST_MYSQL_URL}).
 */
class MySqlLockRepositoryContractIntegrationTests extends JdbcLockRepositoryContract {

	MySqlLockRepositoryContractIntegrationTests() {
		super(TestDatabase.MYSQL, "my");
	}

}
