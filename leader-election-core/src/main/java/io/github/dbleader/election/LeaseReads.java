package io.github.dbleader.election;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link LeaseRepository} keeps of one running instance's reads of its leases
 * ({@link LeaseRepository#findAll}), so that views of a lease (health, the actuator
 * endpoint, partition balancing) answer without the database and the heartbeat need not keep
 * a copy of every lease from one round to the next. Implementations answer from memory only:
 * never a statement, never a wait for one.
 */
@FunctionalInterface
public interface LeaseReads {

	/**
	 * An election's lease as the instance's last read left it.
	 * @param election the election
	 * @return the lease and how long ago it was read, or {@code null} if the last read had no
	 * row of it
	 */
	@Nullable LeaseSighting lastRead(String election);

}
