package io.github.dbleader.election.lock;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LockRepositoryContract} on H2 in memory.
 */
class H2LockRepositoryContractIntegrationTests extends JdbcLockRepositoryContract {

	H2LockRepositoryContractIntegrationTests() {
		super(TestDatabase.H2, "h2");
	}

}
