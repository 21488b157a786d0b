package io.github.dbleader.election;

import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.test.TestDatabase;

/**
 * {@link AbstractElectionIntegrationTests} through MariaDB Connector/J
 * ({@code jdbc:mariadb:}) on the server of {@link MySqlElectionIntegrationTests}: the URL
 * of {@code LEADER_ELECTION_TEST_MARIADB_URL}, or else that of
 * {@code LEADER_ELECTION_TEST_MYSQL_URL} with {@code jdbc:mariadb:} for
 * {@code jdbc:mysql:}, as the user of {@code LEADER_ELECTION_TEST_MYSQL_USERNAME} and
 * {@code _PASSWORD}. Fails, and does not skip, when that server cannot be reached.
 */
class MariaDbDriverElectionIntegrationTests extends AbstractElectionIntegrationTests {

	MariaDbDriverElectionIntegrationTests() {
		super("mdb");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.of(TestDatabase.MARIADB);
	}

}
