package io.github.dbleader.election;

import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.test.TestDatabase;

/**
 * {@link AbstractElectionIntegrationTests} on the PostgreSQL server named by
 * {@code LEADER_ELECTION_TEST_POSTGRESQL_URL}, {@code _USERNAME} and {@code _PASSWORD}
 * (default {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}). Fails, and
 * does not skip, when that server cannot be reached.
 */
class PostgreSqlElectionIntegrationTests extends AbstractElectionIntegrationTests {

	PostgreSqlElectionIntegrationTests() {
		super("pg");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.of(TestDatabase.POSTGRESQL);
	}

}
