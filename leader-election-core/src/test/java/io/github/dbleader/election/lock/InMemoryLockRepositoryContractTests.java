package io.github.dbleader.election.lock;

import java.time.Duration;

/**
 * {@link LockRepositoryContract} on the test double {@link InMemoryLockRepository}: the
 * database that the lock tests run on passes what every real database passes
 * ({@link JdbcLockRepositoryContract}).
 */
class InMemoryLockRepositoryContractTests extends LockRepositoryContract {

	private InMemoryLockRepository repository;

	@Override
	protected LockRepository createRepository() {
		this.repository = new InMemoryLockRepository();
		return this.repository;
	}

	@Override
	protected void advanceDatabaseClock(Duration by) {
		this.repository.advanceDatabaseClock(by);
	}

}
