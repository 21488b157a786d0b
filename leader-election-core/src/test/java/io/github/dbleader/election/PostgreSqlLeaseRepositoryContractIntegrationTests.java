package io.github.dbleader.election;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LeaseRepositoryContract} on the PostgreSQL test server
 * ({@code LEADER_ELECTION_TEST_POSTGRESQL_URL}, see
 * {@link PostgreSqlElectionIntegrationTests}).
 */
class PostgreSqlLeaseRepositoryContractIntegrationTests extends JdbcLeaseRepositoryContract {

	PostgreSqlLeaseRepositoryContractIntegrationTests() {
		super(TestDatabase.POSTGRESQL, "pg");
	}

}
