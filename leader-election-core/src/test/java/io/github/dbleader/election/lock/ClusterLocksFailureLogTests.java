package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import io.github.dbleader.election.CapturedLog;
import io.github.dbleader.election.MonotonicClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A try of a lock or of a permit that fails at the database skips the run, like a lock
 * held elsewhere, but says so: once at WARN when a lock's tries start failing, once at
 * INFO when they reach the database again, at DEBUG in between.
 */
class ClusterLocksFailureLogTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	private final MonotonicClock clock = this.nanos::get;

	private final InMemoryLockRepository repository = new InMemoryLockRepository();

	private final ClusterLocks locks = new ClusterLocks(this.repository, "a", this.clock);

	private final CapturedLog log = CapturedLog.of(ClusterLocks.class);

	@AfterEach
	void restoreTheLog() {
		this.log.close();
	}

	private List<String> at(Level level) {
		return this.log.at(level);
	}

	@Test
	void failedTriesOfALockWarnOnceNamingTheLockAndTheCauseAndTheRecoveryIsTold() {
		this.repository.failure = new IllegalStateException("connection lost");
		assertThat(this.locks.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(this.locks.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(this.locks.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(at(Level.WARN)).singleElement().asString().contains("'job'").contains("connection lost");
		this.repository.failure = null;
		assertThat(this.locks.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
		assertThat(at(Level.INFO)).singleElement().asString().contains("'job'");
		assertThat(at(Level.WARN)).hasSize(1);
	}

	@Test
	void aLockThatFailsAgainAfterItsRecoveryWarnsAgain() {
		this.repository.failure = new IllegalStateException("connection lost");
		this.locks.tryLock("job", AT_MOST, Duration.ZERO);
		this.repository.failure = null;
		this.locks.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow().release();
		this.repository.failure = new IllegalStateException("connection lost again");
		this.locks.tryLock("job", AT_MOST, Duration.ZERO);
		assertThat(at(Level.WARN)).hasSize(2).last().asString().contains("connection lost again");
	}

	@Test
	void aTryRefusedBecauseTheLockIsHeldIsNoFailure() {
		ClusterLocks other = new ClusterLocks(this.repository, "b", this.clock);
		other.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(this.locks.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(at(Level.WARN)).isEmpty();
		assertThat(at(Level.INFO)).isEmpty();
	}

	@Test
	void eachLockWarnsOfItsOwnFailures() {
		this.repository.failure = new IllegalStateException("connection lost");
		this.locks.tryLock("first", AT_MOST, Duration.ZERO);
		this.locks.tryLock("second", AT_MOST, Duration.ZERO);
		assertThat(at(Level.WARN)).hasSize(2)
			.anySatisfy((line) -> assertThat(line).contains("'first'"))
			.anySatisfy((line) -> assertThat(line).contains("'second'"));
	}

	@Test
	void aFailedReadOfThePermitsWarnsOnceAndItsRecoveryIsTold() {
		this.repository.failure = new IllegalStateException("connection lost");
		assertThat(this.locks.tryPermit("batch", 3, AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(this.locks.tryPermit("batch", 3, AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(at(Level.WARN)).singleElement().asString().contains("'batch'").contains("connection lost");
		this.repository.failure = null;
		assertThat(this.locks.tryPermit("batch", 3, AT_MOST, Duration.ZERO)).isPresent();
		assertThat(at(Level.INFO)).singleElement().asString().contains("'batch'");
	}

}
