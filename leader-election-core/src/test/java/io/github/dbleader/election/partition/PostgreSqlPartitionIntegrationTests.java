package io.github.dbleader.election.partition;

import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.test.TestDatabase;

/**
 * {@link AbstractPartitionIntegrationTests} on the PostgreSQL server named by
 * {@code LEADER_ELECTION_TEST_POSTGRESQL_URL}; fails, and does not skip, when it cannot
 * be reached.
 */
class PostgreSqlPartitionIntegrationTests extends AbstractPartitionIntegrationTests {

	PostgreSqlPartitionIntegrationTests() {
		super("pg");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.of(TestDatabase.POSTGRESQL);
	}

}
