package io.github.dbleader.election;

import java.time.Duration;

/**
 * {@link LeaseRepositoryContract} on the test double {@link InMemoryLeaseDatabase}: the
 * database that the simulator and the state-machine tests run on passes what every real
 * database passes ({@link JdbcLeaseRepositoryContract}).
 */
class InMemoryLeaseDatabaseContractTests extends LeaseRepositoryContract {

	private InMemoryLeaseDatabase repository;

	@Override
	protected LeaseRepository createRepository() {
		this.repository = new InMemoryLeaseDatabase();
		return this.repository;
	}

	@Override
	protected void advanceDatabaseClock(Duration by) {
		this.repository.advanceDatabaseClock(by);
	}

}
