package io.github.dbleader.election;

/**
 * What the database needs before this node's first heartbeat, such as learning which
 * database it is and creating the tables. {@link ElectionService} runs it on the
 * heartbeat thread before the first round, and again every renew interval until it
 * succeeds; until then the node joins no election and reports that it waits for its
 * database ({@link ElectionService#isWaitingForDatabase()}). So an application whose
 * database is slow or away at boot starts all the same, and joins once the database
 * answers.
 */
@FunctionalInterface
public interface DatabasePreparation {

	/** Nothing to prepare. */
	DatabasePreparation NONE = () -> {
	};

	/**
	 * Prepare the database. Must be idempotent: it runs again after a failure, and on
	 * every node.
	 * @throws RuntimeException if the database does not answer or refuses; the service
	 * tries again a renew interval later
	 */
	void prepare();

}
