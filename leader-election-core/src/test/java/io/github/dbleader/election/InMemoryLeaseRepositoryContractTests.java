package io.github.dbleader.election;

import java.time.Duration;

/**
 * {@link LeaseRepositoryContract} on the test double {@link InMemoryLeaseRepository}: the
 * database that the simulator and the state-machine tests run on passes what every real
 * database passes ({@link JdbcLeaseRepositoryContract}).
 */
class InMemoryLeaseRepositoryContractTests extends LeaseRepositoryContract {

	private InMemoryLeaseRepository repository;

	@Override
	protected LeaseRepository createRepository() {
		this.repository = new InMemoryLeaseRepository();
		return this.repository;
	}

	@Override
	protected void advanceDatabaseClock(Duration by) {
		this.repository.advanceDatabaseClock(by);
	}

}
