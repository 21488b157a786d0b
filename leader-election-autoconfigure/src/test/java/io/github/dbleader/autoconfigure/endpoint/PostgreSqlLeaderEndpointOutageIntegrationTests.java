package io.github.dbleader.autoconfigure.endpoint;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link AbstractLeaderEndpointOutageIntegrationTests} on the PostgreSQL test database
 * ({@link TestDatabase#POSTGRESQL}).
 */
class PostgreSqlLeaderEndpointOutageIntegrationTests extends AbstractLeaderEndpointOutageIntegrationTests {

	PostgreSqlLeaderEndpointOutageIntegrationTests() {
		super(TestDatabase.POSTGRESQL, 5432);
	}

}
