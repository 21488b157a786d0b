package io.github.dbleader.shedlock;

import io.github.dbleader.test.TestDatabase;

/**
 * Locks taken in a caller's transaction, on the PostgreSQL test database.
 */
class PostgreSqlLockInCallerTransactionIntegrationTests extends AbstractLockInCallerTransactionIntegrationTests {

	PostgreSqlLockInCallerTransactionIntegrationTests() {
		super(TestDatabase.POSTGRESQL);
	}

}
