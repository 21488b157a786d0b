package io.github.dbleader.election.partition;

import io.github.dbleader.test.TestDatabase;

/** {@link PartitionPinsContract} on H2. */
class H2PartitionPinsContractIntegrationTests extends JdbcPartitionPinsContract {

	H2PartitionPinsContractIntegrationTests() {
		super(TestDatabase.H2, "h2");
	}

}
