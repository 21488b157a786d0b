package io.github.dbleader.autoconfigure.endpoint;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link AbstractLeaderEndpointOutageIntegrationTests} on the MySQL-protocol test
 * database ({@link TestDatabase#MYSQL}: MariaDB in CI).
 */
class MySqlLeaderEndpointOutageIntegrationTests extends AbstractLeaderEndpointOutageIntegrationTests {

	MySqlLeaderEndpointOutageIntegrationTests() {
		super(TestDatabase.MYSQL, 3306);
	}

}
