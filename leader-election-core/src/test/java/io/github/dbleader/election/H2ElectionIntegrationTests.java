package io.github.dbleader.election;

import io.github.dbleader.election.it.ElectionDatabase;

/**
 * {@link AbstractElectionIntegrationTests} on an H2 database in memory. Nodes use it
 * embedded; a node that must be cut off from it reaches it through an H2 TCP server in
 * this JVM and a proxy.
 */
class H2ElectionIntegrationTests extends AbstractElectionIntegrationTests {

	H2ElectionIntegrationTests() {
		super("h2");
	}

	@Override
	protected ElectionDatabase createDatabase() {
		return ElectionDatabase.h2InMemory();
	}

}
