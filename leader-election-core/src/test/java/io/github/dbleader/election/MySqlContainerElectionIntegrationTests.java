package io.github.dbleader.election;

import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

/**
 * {@link AbstractElectionIntegrationTests} on MySQL itself (CI runs MariaDB) in a
 * Testcontainers container. Runs only where a Docker engine exists; without one it is
 * skipped, which is why {@link MySqlElectionIntegrationTests} exists and fails instead.
 */
@Testcontainers(disabledWithoutDocker = true)
class MySqlContainerElectionIntegrationTests extends AbstractElectionIntegrationTests {

	@Container
	static final MySQLContainer mysql = new MySQLContainer("mysql:8.4");

	MySqlContainerElectionIntegrationTests() {
		super("mytc");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.of(mysql, SqlDialect.MYSQL);
	}

}
