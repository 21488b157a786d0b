package io.github.dbleader.shedlock;

import io.github.dbleader.test.TestDatabase;

/**
 * ShedLock's contract tests on the PostgreSQL test database.
 */
class PostgreSqlClusterLockProviderIntegrationTests extends AbstractClusterLockProviderIntegrationTests {

	PostgreSqlClusterLockProviderIntegrationTests() {
		super(TestDatabase.POSTGRESQL);
	}

}
