package io.github.dbleader.faults;

import io.github.dbleader.test.TestDatabase;

/**
 * M1 ({@link AbstractMixedWorkScenariosIntegrationTests}) on PostgreSQL: the server given
 * by {@code LEADER_ELECTION_TEST_POSTGRESQL_URL}, {@code _USERNAME} and {@code _PASSWORD}
 * (what CI exports), else a container or an embedded server; never skipped. M2's load is
 * MySQL's SQL and stays on the MySQL-protocol database
 * ({@link MixedWorkScenariosIntegrationTests}).
 */
@ForkUse(ForkUse.Mode.SHARED)
class PostgreSqlMixedWorkScenariosIntegrationTests extends AbstractMixedWorkScenariosIntegrationTests {

	PostgreSqlMixedWorkScenariosIntegrationTests() {
		super(TestDatabase.POSTGRESQL);
	}

}
