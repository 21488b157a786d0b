package io.github.dbleader.shedlock;

import io.github.dbleader.test.TestDatabase;

/**
 * Locks taken in a caller's transaction, on the MySQL-protocol test database through
 * MySQL Connector/J (MariaDB in CI).
 */
class MySqlLockInCallerTransactionIntegrationTests extends AbstractLockInCallerTransactionIntegrationTests {

	MySqlLockInCallerTransactionIntegrationTests() {
		super(TestDatabase.MYSQL);
	}

}
