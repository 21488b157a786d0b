package io.github.dbleader.election;

import io.github.dbleader.test.TestDatabase;

/**
 * {@link LeaseRepositoryContract} on H2 in memory.
 */
class H2LeaseRepositoryContractIntegrationTests extends JdbcLeaseRepositoryContract {

	H2LeaseRepositoryContractIntegrationTests() {
		super(TestDatabase.H2, "h2");
	}

}
