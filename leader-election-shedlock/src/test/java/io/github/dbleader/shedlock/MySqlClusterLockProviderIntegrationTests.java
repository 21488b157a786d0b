package io.github.dbleader.shedlock;

import io.github.dbleader.test.TestDatabase;

/**
 * ShedLock's contract tests on the MySQL-protocol test database through MySQL Connector/J
 * (MariaDB in CI).
 */
class MySqlClusterLockProviderIntegrationTests extends AbstractClusterLockProviderIntegrationTests {

	MySqlClusterLockProviderIntegrationTests() {
		super(TestDatabase.MYSQL);
	}

}
