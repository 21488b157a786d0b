package io.github.dbleader.election.partition;

import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.test.TestDatabase;

/**
 * {@link AbstractPartitionIntegrationTests} on the MySQL or MariaDB server named by
 * {@code LEADER_ELECTION_TEST_MYSQL_URL}; fails, and does not skip, when it cannot be
 * reached.
 */
class MySqlPartitionIntegrationTests extends AbstractPartitionIntegrationTests {

	MySqlPartitionIntegrationTests() {
		super("my");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.of(TestDatabase.MYSQL);
	}

}
