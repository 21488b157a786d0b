package io.github.dbleader.shedlock;

import io.github.dbleader.test.TestDatabase;

/**
 * The migration bridge beside ShedLock's own provider on the MySQL-protocol test database
 * through MySQL Connector/J (MariaDB in CI).
 */
class MySqlShedLockBridgeIntegrationTests extends AbstractShedLockBridgeIntegrationTests {

	MySqlShedLockBridgeIntegrationTests() {
		super(TestDatabase.MYSQL);
	}

}
