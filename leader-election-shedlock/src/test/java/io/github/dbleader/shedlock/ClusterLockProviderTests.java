package io.github.dbleader.shedlock;

import java.time.Duration;
import java.util.UUID;

import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockRun;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.h2.Driver;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ClusterLockProvider} and {@link SchedulerLockContext} on an embedded
 * database; ShedLock's contract tests run in the {@code …IntegrationTests}.
 */
class ClusterLockProviderTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private final ClusterLocks locks;

	private final ClusterLocks elsewhere;

	private final ClusterLockProvider provider;

	ClusterLockProviderTests() {
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new Driver(),
				"jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
		LeaseSchema.create(dataSource, SqlDialect.H2, LeaseTables.defaults());
		JdbcLockRepository repository = new JdbcLockRepository(
				new JdbcStore(dataSource, SqlDialect.H2, LeaseTables.defaults(), Duration.ofSeconds(5)));
		this.locks = new ClusterLocks(repository, "here");
		this.elsewhere = new ClusterLocks(repository, "elsewhere");
		this.provider = new ClusterLockProvider(this.locks);
	}

	private static LockConfiguration config(String name, Duration atMostFor, Duration atLeastFor) {
		return new LockConfiguration(java.time.Instant.now(), name, atMostFor, atLeastFor);
	}

	@Test
	void aRunsLockIsTheContextsUntilItIsUnlockedAndTheRunIsRecorded() {
		assertThat(SchedulerLockContext.currentLock()).isEmpty();
		assertThatIllegalStateException().isThrownBy(SchedulerLockContext::currentTerm);
		SimpleLock outer = this.provider.lock(config("outer", AT_MOST, Duration.ZERO)).orElseThrow();
		HeldLock outerLock = SchedulerLockContext.currentLock().orElseThrow();
		SimpleLock inner = this.provider.lock(config("inner", AT_MOST, Duration.ZERO)).orElseThrow();
		HeldLock innerLock = SchedulerLockContext.currentLock().orElseThrow();
		assertThat(innerLock.name()).isEqualTo("inner");
		assertThat(SchedulerLockContext.currentTerm()).isEqualTo(innerLock.term());
		assertThat(SchedulerLockContext.<Long>runFenced((term) -> term)).isEqualTo(innerLock.term());
		assertThat(this.locks.currentLock()).contains(innerLock);
		inner.unlock();
		assertThat(SchedulerLockContext.currentLock()).contains(outerLock);
		outer.unlock();
		assertThat(SchedulerLockContext.currentLock()).isEmpty();
		assertThat(this.locks.currentLock()).isEmpty();
		assertThat(this.locks.recentRuns("inner")).singleElement()
			.extracting(LockRun::outcome)
			.isEqualTo(LockRun.Outcome.ENDED);
		assertThat(this.elsewhere.tryLock("inner", AT_MOST, Duration.ZERO)).as("released").isPresent();
	}

	@Test
	void anExtensionKeepsTheRunAndItsTermAndTheOldLockIsSpent() {
		SimpleLock lock = this.provider.lock(config("job", AT_MOST, Duration.ZERO)).orElseThrow();
		long term = SchedulerLockContext.currentTerm();
		SimpleLock extended = lock.extend(AT_MOST, Duration.ofSeconds(10)).orElseThrow();
		assertThat(SchedulerLockContext.currentTerm()).isEqualTo(term);
		assertThatIllegalStateException().isThrownBy(lock::unlock);
		extended.unlock();
		assertThat(SchedulerLockContext.currentLock()).isEmpty();
		assertThat(this.elsewhere.tryLock("job", AT_MOST, Duration.ZERO)).as("the extension's atLeastFor").isEmpty();
	}

	@Test
	void anExtensionThatFindsTheLockLostEndsTheRun() {
		SimpleLock lock = this.provider.lock(config("job", AT_MOST, Duration.ZERO)).orElseThrow();
		this.locks.forceRelease("job");
		assertThat(lock.extend(AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(SchedulerLockContext.currentLock()).isEmpty();
		assertThat(this.locks.recentRuns("job")).singleElement()
			.extracting(LockRun::outcome)
			.isEqualTo(LockRun.Outcome.ENDED);
	}

	@Test
	void aTakenLockIsNotGiven() {
		HeldLock held = this.elsewhere.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(this.provider.lock(config("job", AT_MOST, Duration.ZERO))).isEmpty();
		assertThat(SchedulerLockContext.currentLock()).isEmpty();
		held.release();
		this.provider.lock(config("job", AT_MOST, Duration.ZERO)).orElseThrow().unlock();
	}

}
