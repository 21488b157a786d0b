package io.github.dbleader.election.lock;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LockRepositoryContract} on the PostgreSQL test server
 * ({@code LEADER_ELECTION_TEST_POSTGRESQL_URL}).
 */
class PostgreSqlLockRepositoryContractIntegrationTests extends JdbcLockRepositoryContract {

	PostgreSqlLockRepositoryContractIntegrationTests() {
		super(TestDatabase.POSTGRESQL, "pg");
	}

}
