package io.github.dbleader.shedlock;

import io.github.dbleader.test.TestDatabase;

/**
 * The migration bridge beside ShedLock's own provider on the PostgreSQL test database.
 */
class PostgreSqlShedLockBridgeIntegrationTests extends AbstractShedLockBridgeIntegrationTests {

	PostgreSqlShedLockBridgeIntegrationTests() {
		super(TestDatabase.POSTGRESQL);
	}

}
