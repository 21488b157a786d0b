package io.github.dbleader.election;

import java.time.Instant;

/**
 * A node that takes part in an election, as last seen by the database.
 *
 * @param nodeId the node
 * @param firstSeen when it first joined (database clock)
 * @param lastSeen its last heartbeat (database clock)
 */
public record Candidate(String nodeId, Instant firstSeen, Instant lastSeen) {
}
