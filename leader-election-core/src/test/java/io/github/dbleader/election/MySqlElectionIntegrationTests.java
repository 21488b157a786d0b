package io.github.dbleader.election;

import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.test.TestDatabase;

/**
 * {@link AbstractElectionIntegrationTests} on the MySQL or MariaDB server named by
 * {@code LEADER_ELECTION_TEST_MYSQL_URL}, {@code _USERNAME} and {@code _PASSWORD}
 * (default {@code jdbc:mysql://127.0.0.1:3306/test} as {@code root}). Fails, and does not
 * skip, when that server cannot be reached.
 */
class MySqlElectionIntegrationTests extends AbstractElectionIntegrationTests {

	MySqlElectionIntegrationTests() {
		super("my");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.of(TestDatabase.MYSQL);
	}

}
