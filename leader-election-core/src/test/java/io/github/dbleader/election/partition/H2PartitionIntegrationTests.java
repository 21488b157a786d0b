package io.github.dbleader.election.partition;

import io.github.dbleader.election.it.ElectionDatabase;

/**
 * {@link AbstractPartitionIntegrationTests} on an H2 database in memory.
 */
class H2PartitionIntegrationTests extends AbstractPartitionIntegrationTests {

	H2PartitionIntegrationTests() {
		super("h2");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.h2InMemory();
	}

}
