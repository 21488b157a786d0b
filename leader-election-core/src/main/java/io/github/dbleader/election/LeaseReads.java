package io.github.dbleader.election;

import org.jspecify.annotations.Nullable;

/**
 * The leases of one running instance's elections as a {@link LeaseRepository} read them
 * ({@link LeaseRepository#readAll}), by election. The heartbeat asks for each election's
 * lease as it decides, and keeps the object until its next read, so that views of a lease
 * (health, the actuator endpoint, partition balancing) answer without the database.
 * Implementations answer from memory only: never a statement, never a wait for one. An
 * implementation that keeps a view of the leases between reads may compose each lease
 * when it is asked for, so that a node with hundreds of thousands of elections never
 * holds them all at once.
 */
@FunctionalInterface
public interface LeaseReads {

	/**
	 * An election's lease as the read left it.
	 * @param election the election
	 * @return the lease, or {@code null} if the read had no row of it
	 */
	@Nullable LeaseState lease(String election);

}
