package io.github.dbleader.autoconfigure.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import io.github.dbleader.election.lock.LockState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TestControlledLeaseRepository}'s locks on a wall clock that the test steps, as
 * the database's clock can be.
 */
class TestControlledLeaseRepositoryTests {

	/**
	 * A lease the test did not grant is refused by design, and said so: the election's
	 * rounds, which try to create it, do not warn that a lease is missing from their
	 * reads.
	 */
	@Test
	void aLeaseTheTestDidNotGrantIsRefusedByDesign() {
		TestControlledLeaseRepository repository = new TestControlledLeaseRepository(
				new SteppedClock(Instant.parse("2026-01-01T00:00:00Z")), () -> null);
		assertThat(repository.create("reports", "a", Duration.ofSeconds(10))).isFalse();
		assertThat(repository.refusesRowsOf("reports")).isTrue();
		repository.grant("reports", "a", 7);
		assertThat(repository.refusesRowsOf("reports")).isFalse();
		assertThat(repository.create("reports", "a", Duration.ofSeconds(10))).isTrue();
		assertThat(repository.refusesRowsOf("reports")).isFalse();
	}

	@Test
	void aReleaseAfterTheClockSteppedBackKeepsTheLockAtMostAtLeastForLonger() {
		SteppedClock clock = new SteppedClock(Instant.parse("2026-01-01T00:00:00Z"));
		TestControlledLeaseRepository repository = new TestControlledLeaseRepository(clock, () -> null);
		long term = repository.tryLock("lock:job", "a", Duration.ofSeconds(30)).orElseThrow();
		assertThat(repository.extendLock("lock:job", "a", term, Duration.ofSeconds(30))).isTrue();
		clock.now = clock.now.minusSeconds(60);
		assertThat(repository.releaseLock("lock:job", "a", term, Duration.ofSeconds(2), Duration.ofSeconds(1)))
			.isTrue();
		LockState lock = repository.findLocks().get(0);
		assertThat(lock.expiresAt()).isEqualTo(clock.now.plusSeconds(2));
		clock.now = clock.now.plusSeconds(2);
		assertThat(repository.tryLock("lock:job", "b", Duration.ofSeconds(30))).isPresent();
	}

	private static final class SteppedClock extends Clock {

		Instant now;

		SteppedClock(Instant now) {
			this.now = now;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

	}

}
