package io.github.dbleader.election.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.github.dbleader.election.ElectionNames;
import io.github.dbleader.election.MonotonicClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for the permits of cluster locks ({@link ClusterLocks#tryPermit}) on a fake
 * monotonic clock and the in-memory repository, which counts the statements a JDBC
 * repository sends.
 */
class ClusterLockPermitsTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	private final MonotonicClock clock = this.nanos::get;

	private final InMemoryLockRepository repository = new InMemoryLockRepository();

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
		this.repository.advanceDatabaseClock(duration);
	}

	private ClusterLocks node(String nodeId) {
		return new ClusterLocks(this.repository, nodeId, this.clock);
	}

	private List<HeldLock> takeAll(int permits, String... nodes) {
		List<HeldLock> held = new ArrayList<>();
		for (String node : nodes) {
			held.add(node(node).tryPermit("reports", permits, AT_MOST, Duration.ZERO).orElseThrow());
		}
		return held;
	}

	@Test
	void atMostNHoldersAtOnceEachOnAPermitOfItsOwnAndTheNextIsRefusedWithOneStatement() {
		List<HeldLock> held = takeAll(3, "a", "b", "c");
		assertThat(held).extracting(HeldLock::name)
			.containsExactlyInAnyOrder("reports", "reports::permit-2", "reports::permit-3");
		int before = this.repository.statements;
		assertThat(node("d").tryPermit("reports", 3, AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(this.repository.statements - before).as("statements of a try that finds every permit held")
			.isEqualTo(1);
		assertThat(node("a").findLocks()).extracting(LockState::name)
			.containsExactly("reports", "reports::permit-2", "reports::permit-3");
	}

	@Test
	void theFirstPermitIsTheLockItself() {
		HeldLock lock = node("a").tryLock("reports", AT_MOST, Duration.ZERO).orElseThrow();
		List<HeldLock> permits = takeAll(2, "b");
		assertThat(permits).extracting(HeldLock::name).containsExactly("reports::permit-2");
		assertThat(node("c").tryPermit("reports", 2, AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(node("c").tryPermit("reports", 1, AT_MOST, Duration.ZERO)).isEmpty();
		lock.release();
		assertThat(node("c").tryPermit("reports", 2, AT_MOST, Duration.ZERO)).map(HeldLock::name).contains("reports");
	}

	@Test
	void aReleasedPermitIsTakenAgainWithAGreaterTermAndExpiredOnesToo() {
		List<HeldLock> held = takeAll(3, "a", "b", "c");
		HeldLock second = held.get(1);
		second.release();
		HeldLock again = node("d").tryPermit("reports", 3, AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(again.name()).isEqualTo(second.name());
		assertThat(again.term()).isGreaterThan(second.term());
		advance(AT_MOST);
		assertThat(takeAll(3, "e", "f", "g")).extracting(HeldLock::term)
			.allSatisfy((term) -> assertThat(term).isGreaterThan(again.term()));
	}

	@Test
	void eachHolderRunsFencedWorkUnderItsOwnTermAndIsRefusedOnceItsPermitIsLost() {
		List<HeldLock> held = takeAll(2, "a", "b");
		for (HeldLock permit : held) {
			assertThat(permit.<Long>runFenced((term) -> term)).isEqualTo(permit.term());
		}
		// A forward step of the database clock alone: the holders still believe, and
		// the database gives their permits to others.
		this.repository.advanceDatabaseClock(AT_MOST);
		takeAll(2, "c", "d");
		for (HeldLock permit : held) {
			assertThat(permit.isHeld()).isTrue();
			assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> permit.runFenced((term) -> term));
		}
	}

	@Test
	void aKeptAlivePermitOutlivesAtMostFor() {
		KeepAliveSettings keep = new KeepAliveSettings(Duration.ofSeconds(3), Duration.ofMillis(500));
		ClusterLocks kept = new ClusterLocks(this.repository, "a", this.clock, Clock.systemUTC(), LockRunListener.NONE,
				keep);
		Duration atMostFor = Duration.ofSeconds(2);
		HeldLock permit = kept.tryPermit("reports", 2, atMostFor, Duration.ZERO).orElseThrow();
		permit.keepAlive(Duration.ofMinutes(1));
		for (int round = 0; round < 20; round++) {
			advance(keep.renewInterval());
			kept.keeper().round();
		}
		assertThat(permit.isHeld()).isTrue();
		assertThat(node("b").tryPermit("reports", 2, AT_MOST, Duration.ZERO)).map(HeldLock::name)
			.isNotEqualTo(Optional.of(permit.name()))
			.isPresent();
		assertThat(node("c").tryPermit("reports", 2, AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(permit.<Long>runFenced((term) -> term)).isEqualTo(permit.term());
	}

	@ParameterizedTest
	@ValueSource(ints = { 2, 3, 10 })
	void aTakeCostsTwoStatementsAndARefusedTryOneWhateverTheNumberOfPermits(int permits) {
		ClusterLocks a = node("a");
		List<HeldLock> held = new ArrayList<>();
		for (int i = 0; i < permits; i++) {
			int before = this.repository.statements;
			held.add(a.tryPermit("reports", permits, AT_MOST, Duration.ZERO).orElseThrow());
			assertThat(this.repository.statements - before).as("statements of take %d of %d", i + 1, permits)
				.isEqualTo(2);
		}
		int before = this.repository.statements;
		assertThat(node("b").tryPermit("reports", permits, AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(this.repository.statements - before).isEqualTo(1);
	}

	@Test
	void aTakeThatAnotherNodeWinsTriesASecondFreePermit() {
		List<String> tried = new ArrayList<>();
		InMemoryLockRepository racing = new InMemoryLockRepository() {

			@Override
			public synchronized java.util.OptionalLong tryLock(String key, String nodeId, Duration atMostFor) {
				tried.add(key);
				if (tried.size() == 1) {
					// Another node takes the permit between the read and this take.
					super.tryLock(key, "b", atMostFor);
				}
				return super.tryLock(key, nodeId, atMostFor);
			}

		};
		ClusterLocks a = new ClusterLocks(racing, "a", this.clock);
		HeldLock held = a.tryPermit("reports", 3, AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(tried).hasSize(2).doesNotHaveDuplicates();
		assertThat(ClusterLocks.KEY_PREFIX + held.name()).isEqualTo(tried.get(1));
		assertThat(racing.row(tried.get(0)).holder()).isEqualTo("b");
	}

	@Test
	void aFailedReadOfThePermitsTakesNothingAndThrowsNothing() {
		this.repository.failure = new IllegalStateException("connection refused");
		assertThat(node("a").tryPermit("reports", 3, AT_MOST, Duration.ZERO)).isEmpty();
	}

	@Test
	void namesAndCountsThatDoNotFitAreRefused() {
		ClusterLocks a = node("a");
		assertThatIllegalArgumentException().isThrownBy(() -> a.tryLock("reports::permit-2", AT_MOST, Duration.ZERO))
			.withMessageContaining("permit of lock 'reports'");
		assertThatIllegalArgumentException().isThrownBy(() -> a.tryPermit("reports", 0, AT_MOST, Duration.ZERO))
			.withMessageContaining("between 1 and 1000");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> a.tryPermit("reports", ElectionNames.MAX_PERMITS + 1, AT_MOST, Duration.ZERO));
		String longest = "x".repeat(ElectionNames.MAX_LOCK_NAME_LENGTH - "::permit-10".length());
		assertThat(ElectionNames.permitKeys(longest, 10)).hasSize(10)
			.last()
			.isEqualTo("lock:" + longest + "::permit-10");
		assertThatIllegalArgumentException().isThrownBy(() -> a.tryPermit(longest + "x", 10, AT_MOST, Duration.ZERO))
			.withMessageContaining("too long for 10 permits");
		assertThat(a.tryPermit(longest + "x", 9, AT_MOST, Duration.ZERO)).isPresent();
		// An operator may still read and release a permit by its name.
		assertThat(ClusterLocks.key("reports::permit-2")).isEqualTo("lock:reports::permit-2");
		assertThat(this.repository.statements).isEqualTo(2);
	}

}
