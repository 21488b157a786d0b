package io.github.dbleader.election;

import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * {@link AbstractElectionIntegrationTests} on PostgreSQL in a Testcontainers container.
 * Runs only where a Docker engine exists; without one it is skipped, which is why
 * {@link PostgreSqlElectionIntegrationTests} exists and fails instead.
 */
@Testcontainers(disabledWithoutDocker = true)
class PostgreSqlContainerElectionIntegrationTests extends AbstractElectionIntegrationTests {

	@Container
	static final PostgreSQLContainer postgresql = new PostgreSQLContainer("postgres:15-alpine");

	PostgreSqlContainerElectionIntegrationTests() {
		super("pgtc");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.of(postgresql, SqlDialect.POSTGRESQL);
	}

}
