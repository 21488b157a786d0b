package io.github.dbleader.election;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LeaseRepositoryContract} on the MySQL-protocol test server through MariaDB
 * Connector/J (see {@link MariaDbDriverElectionIntegrationTests}).
 */
class MariaDbDriverLeaseRepositoryContractIntegrationTests extends JdbcLeaseRepositoryContract {

	MariaDbDriverLeaseRepositoryContractIntegrationTests() {
		super(TestDatabase.MARIADB, "mdb");
	}

}
