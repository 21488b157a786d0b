package io.github.dbleader.election.lock;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LockRepositoryContract} on the MySQL-protocol test server through MariaDB
 * Connector/J.
 */
class MariaDbDriverLockRepositoryContractIntegrationTests extends JdbcLockRepositoryContract {

	MariaDbDriverLockRepositoryContractIntegrationTests() {
		super(TestDatabase.MARIADB, "mdb");
	}

}
