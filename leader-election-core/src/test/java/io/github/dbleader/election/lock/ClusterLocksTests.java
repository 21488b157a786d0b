package io.github.dbleader.election.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.github.dbleader.election.MonotonicClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link ClusterLocks} and {@link HeldLock} on a fake monotonic clock and an
 * in-memory repository with a database clock of its own.
 */
class ClusterLocksTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	private final MonotonicClock clock = this.nanos::get;

	private final InMemoryLockRepository repository = new InMemoryLockRepository();

	private final ClusterLocks a = new ClusterLocks(this.repository, "a", this.clock);

	private final ClusterLocks b = new ClusterLocks(this.repository, "b", this.clock);

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
		this.repository.advanceDatabaseClock(duration);
	}

	private static final KeepAliveSettings KEEP = new KeepAliveSettings(Duration.ofSeconds(3), Duration.ofMillis(500));

	private ClusterLocks keeping(String nodeId) {
		return new ClusterLocks(this.repository, nodeId, this.clock, Clock.systemUTC(), LockRunListener.NONE, KEEP);
	}

	/** Keep-alive rounds every renew interval for a while. */
	private void keepFor(ClusterLocks locks, Duration duration) {
		for (long waited = 0; waited < duration.toMillis(); waited += KEEP.renewInterval().toMillis()) {
			advance(KEEP.renewInterval());
			locks.keeper().round();
		}
	}

	@Test
	void aKeptAliveLockOutlivesAtMostForWithOneStatementPerRoundForAllLocks() {
		ClusterLocks kept = keeping("a");
		Duration atMostFor = Duration.ofSeconds(2);
		HeldLock first = kept.tryLock("first", atMostFor, Duration.ZERO).orElseThrow();
		HeldLock second = kept.tryLock("second", atMostFor, Duration.ZERO).orElseThrow();
		first.keepAlive(Duration.ofMinutes(1));
		second.keepAlive(Duration.ofMinutes(1));
		int before = this.repository.statements;
		keepFor(kept, atMostFor.multipliedBy(3));
		assertThat(this.repository.statements - before).as("statements of 12 rounds for two locks").isEqualTo(12);
		assertThat(first.isHeld()).isTrue();
		assertThat(second.isHeld()).isTrue();
		assertThat(this.b.tryLock("first", AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(first.<Long>runFenced((term) -> term)).isEqualTo(first.term());
	}

	@Test
	void aCrashedKeeperFreesTheLockAfterALeaseNotAfterMaxFor() {
		ClusterLocks kept = keeping("a");
		HeldLock held = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		held.keepAlive(Duration.ofHours(1));
		keepFor(kept, Duration.ofSeconds(10));
		// The node stops renewing (it crashed): the lock is free a lease after the last
		// renewal.
		advance(KEEP.leaseDuration().minusMillis(1));
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		advance(Duration.ofMillis(1));
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void aLockIsNoLongerRenewedPastMaxForAndItsRunIsToldOnce() {
		ClusterLocks kept = keeping("a");
		HeldLock held = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		held.onLost(() -> lost.add("lost"));
		held.keepAlive(Duration.ofSeconds(10));
		keepFor(kept, Duration.ofSeconds(20));
		assertThat(held.isHeld()).isFalse();
		assertThat(lost).containsExactly("lost");
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).as("taken elsewhere after maxFor and a lease")
			.isPresent();
		// No renewal reached past maxFor, the last lease included.
		assertThat(this.repository.row("lock:job").holder()).isEqualTo("b");
	}

	@Test
	void whileRenewalsFailTheBeliefRunsOutOnTheLocalClockAndTheRunIsTold() {
		ClusterLocks kept = keeping("a");
		HeldLock held = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		held.onLost(() -> lost.add("lost"));
		held.keepAlive(Duration.ofHours(1));
		keepFor(kept, Duration.ofSeconds(5));
		this.repository.failure = new IllegalStateException("database away");
		// The belief: the lease less its guard from just before the last successful
		// renewal.
		keepFor(kept, Duration.ofMillis(2000));
		assertThat(held.isHeld()).isTrue();
		keepFor(kept, Duration.ofMillis(1000));
		assertThat(held.isHeld()).isFalse();
		assertThat(lost).containsExactly("lost");
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> held.runFenced((term) -> term));
	}

	@Test
	void aLockReleasedByAnOperatorIsLostAtTheNextRound() {
		ClusterLocks kept = keeping("a");
		HeldLock held = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		held.onLost(() -> lost.add("lost"));
		held.keepAlive(Duration.ofHours(1));
		keepFor(kept, Duration.ofSeconds(1));
		this.b.forceRelease("job");
		keepFor(kept, Duration.ofMillis(500));
		assertThat(held.isHeld()).isFalse();
		assertThat(lost).containsExactly("lost");
	}

	@Test
	void anEndedRunIsNeitherRenewedNorToldOfALoss() throws Exception {
		ClusterLocks kept = keeping("a");
		List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		kept.runLocked("job", Duration.ofSeconds(2), Duration.ZERO, true, (lock) -> {
			lock.onLost(() -> lost.add("lost"));
			lock.keepAlive(Duration.ofHours(1));
		});
		int before = this.repository.statements;
		keepFor(kept, Duration.ofSeconds(5));
		assertThat(this.repository.statements).isEqualTo(before);
		assertThat(lost).isEmpty();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	/**
	 * The keep-alive's renewal and a shorter extension of the run are under way together;
	 * whichever the database applies last sets the lock's expiry, and neither answer may
	 * make the holder believe past it. The keeper's thread then stalls (no more rounds).
	 */
	@ParameterizedTest(name = "extension applied {0} the renewal")
	@ValueSource(strings = { "after", "before" })
	void aRenewalOverlappingAShorterExtensionIsNeverBelievedPastTheDatabaseExpiry(String order) {
		ClusterLocks kept = keeping("a");
		HeldLock held = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		held.keepAlive(Duration.ofHours(1));
		advance(KEEP.renewInterval());
		this.repository.interleave(order.equals("before"), () -> {
			advance(Duration.ofMillis(100));
			assertThat(held.extend(Duration.ofSeconds(1))).isTrue();
		});
		kept.keeper().round();
		assertBelievedOnlyWhileTheDatabaseHoldsIt(held, KEEP.leaseDuration());
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void afterAnOverlapTheNextRenewalAloneKeepsTheLockBelieved() {
		ClusterLocks kept = keeping("a");
		HeldLock held = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		held.keepAlive(Duration.ofHours(1));
		advance(KEEP.renewInterval());
		this.repository.interleave(false, () -> assertThat(held.extend(Duration.ofSeconds(2))).isTrue());
		kept.keeper().round();
		keepFor(kept, Duration.ofSeconds(10));
		assertThat(held.isHeld()).isTrue();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
	}

	/**
	 * A release while the keep-alive's renewal is under way, applied before it or after.
	 */
	@ParameterizedTest(name = "release applied {0} the renewal")
	@ValueSource(strings = { "after", "before" })
	void aReleaseDuringARenewalEndsTheBeliefAndFreesTheLock(String order) {
		ClusterLocks kept = keeping("a");
		List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		HeldLock held = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		held.onLost(() -> lost.add("lost"));
		held.keepAlive(Duration.ofHours(1));
		advance(KEEP.renewInterval());
		this.repository.interleave(order.equals("before"), () -> assertThat(held.release()).isTrue());
		kept.keeper().round();
		assertThat(held.isHeld()).isFalse();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).as("released, no atLeastFor").isPresent();
		int before = this.repository.statements;
		keepFor(kept, Duration.ofSeconds(1));
		assertThat(this.repository.statements).as("no renewal after the release").isEqualTo(before);
		assertThat(lost).as("a release is no loss").isEmpty();
	}

	/**
	 * An extension that shortens the lock and whose answer is lost: the database may have
	 * applied it, so the belief ends by it.
	 */
	@Test
	void aShorterExtensionWhoseAnswerIsLostBoundsTheBelief() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		this.repository.interleave(false, () -> {
			throw new IllegalStateException("connection lost");
		});
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> held.extend(Duration.ofSeconds(5)));
		assertBelievedOnlyWhileTheDatabaseHoldsIt(held, Duration.ofSeconds(6));
	}

	/**
	 * Move both clocks in steps (no keep-alive round runs) and check at each that the
	 * holder believes it holds the lock only while the database says it is held.
	 */
	private void assertBelievedOnlyWhileTheDatabaseHoldsIt(HeldLock held, Duration during) {
		Duration step = Duration.ofMillis(50);
		for (Duration waited = Duration.ZERO; waited.compareTo(during) <= 0; waited = waited.plus(step)) {
			boolean live = this.repository.findLocks()
				.stream()
				.filter((lock) -> lock.name().equals(held.name()))
				.allMatch(LockState::held);
			if (held.isHeld()) {
				assertThat(live).as("held at the database while believed, %s after the statements", waited).isTrue();
			}
			advance(step);
		}
		assertThat(held.isHeld()).isFalse();
	}

	@Test
	void oneNodeTakesTheLockAndAnotherSkipsWithOneStatement() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(held.isHeld()).isTrue();
		assertThat(held.name()).isEqualTo("job");
		assertThat(this.repository.row("lock:job").holder()).isEqualTo("a");
		int before = this.repository.statements;
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		assertThat(this.repository.statements - before).isOne();
	}

	@Test
	void releaseFreesTheLockForTheNextRunWithAGreaterTerm() {
		HeldLock first = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(first.release()).isTrue();
		assertThat(first.isHeld()).isFalse();
		assertThat(first.release()).as("second release").isFalse();
		HeldLock second = this.b.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(second.term()).isGreaterThan(first.term());
		HeldLock third = reacquireAfterRelease(second, this.a);
		assertThat(third.term()).isGreaterThan(second.term());
	}

	private HeldLock reacquireAfterRelease(HeldLock held, ClusterLocks next) {
		held.release();
		return next.tryLock(held.name(), AT_MOST, Duration.ZERO).orElseThrow();
	}

	@Test
	void releaseKeepsTheLockUntilAtLeastForAfterItsAcquisition() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ofSeconds(10)).orElseThrow();
		advance(Duration.ofSeconds(4));
		held.release();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		advance(Duration.ofSeconds(5));
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		advance(Duration.ofSeconds(1));
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void anUnreleasedLockExpiresAfterAtMostFor() {
		this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		advance(AT_MOST.minusMillis(1));
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		advance(Duration.ofMillis(1));
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void beliefEndsAGuardBeforeAtMostForFromTheSendOnTheLocalClock() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		// Only the local clock moves: the database still says the lock is held.
		this.nanos.addAndGet(Duration.ofSeconds(24).minusNanos(1).toNanos());
		assertThat(held.isHeld()).isTrue();
		this.nanos.addAndGet(1);
		assertThat(held.isHeld()).isFalse();
	}

	@Test
	void beliefStartsBeforeTheStatementIsSent() {
		ClusterLocks slow = new ClusterLocks(new InMemoryLockRepository() {

			@Override
			public synchronized java.util.OptionalLong tryLock(String key, String nodeId, Duration atMostFor) {
				// The answer takes 20 seconds to arrive.
				ClusterLocksTests.this.nanos.addAndGet(Duration.ofSeconds(20).toNanos());
				return super.tryLock(key, nodeId, atMostFor);
			}

		}, "a", this.clock);
		HeldLock held = slow.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		this.nanos.addAndGet(Duration.ofSeconds(4).minusNanos(1).toNanos());
		assertThat(held.isHeld()).isTrue();
		this.nanos.addAndGet(1);
		assertThat(held.isHeld()).isFalse();
	}

	@Test
	void extendKeepsTheLockAtTheDatabaseAndRenewsTheBeliefFromTheSend() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		advance(Duration.ofSeconds(20));
		int before = this.repository.statements;
		assertThat(held.extend(AT_MOST)).isTrue();
		assertThat(this.repository.statements - before).as("statements of an extension").isOne();
		// 44 s after the acquisition, past its atMostFor: held at the database and
		// believed.
		advance(Duration.ofSeconds(23));
		this.nanos.addAndGet(Duration.ofSeconds(1).minusNanos(1).toNanos());
		assertThat(held.isHeld()).isTrue();
		assertThat(held.isPastAtMostFor()).isFalse();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		this.nanos.addAndGet(1);
		assertThat(held.isHeld()).as("a guard before the extension's atMostFor").isFalse();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		advance(Duration.ofSeconds(7));
		assertThat(held.isPastAtMostFor()).isTrue();
		HeldLock next = this.b.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(next.term()).isGreaterThan(held.term());
	}

	@Test
	void extendKeepsTheTermAndFencedWorkGoesOn() {
		HeldLock held = this.a.tryLock("job", Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
		advance(Duration.ofSeconds(7));
		assertThat(held.extend(Duration.ofSeconds(10))).isTrue();
		advance(Duration.ofSeconds(7));
		assertThat(held.<Long>runFenced((term) -> term)).isEqualTo(held.term());
		assertThat(held.atMostFor()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void theBeliefAfterAnExtensionStartsBeforeItsStatementIsSent() {
		ClusterLocks slow = new ClusterLocks(new InMemoryLockRepository() {

			@Override
			public synchronized boolean extendLock(String key, String nodeId, long term, Duration atMostFor) {
				// The answer takes 20 seconds to arrive.
				ClusterLocksTests.this.nanos.addAndGet(Duration.ofSeconds(20).toNanos());
				return super.extendLock(key, nodeId, term, atMostFor);
			}

		}, "a", this.clock);
		HeldLock held = slow.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(held.extend(AT_MOST)).isTrue();
		this.nanos.addAndGet(Duration.ofSeconds(4).minusNanos(1).toNanos());
		assertThat(held.isHeld()).isTrue();
		this.nanos.addAndGet(1);
		assertThat(held.isHeld()).isFalse();
	}

	@Test
	void aFailedExtensionThrowsAndDoesNotRenewTheBelief() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		advance(Duration.ofSeconds(20));
		this.repository.failure = new IllegalStateException("connection lost");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> held.extend(AT_MOST));
		this.repository.failure = null;
		advance(Duration.ofSeconds(4));
		assertThat(held.isHeld()).isFalse();
		assertThat(held.extend(AT_MOST)).as("once the belief has ended").isFalse();
	}

	@Test
	void extendIsRefusedWithoutAStatementAfterReleaseOrOnceTheBeliefEnded() {
		HeldLock released = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		released.release();
		int before = this.repository.statements;
		assertThat(released.extend(AT_MOST)).isFalse();
		HeldLock late = this.b.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		this.nanos.addAndGet(Duration.ofSeconds(24).toNanos());
		assertThat(late.extend(AT_MOST)).as("belief ended, the database still holds it").isFalse();
		assertThat(this.repository.statements - before).as("only the take").isOne();
	}

	@Test
	void extendRefusedByTheDatabaseEndsTheBelief() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		this.a.forceRelease("job");
		assertThat(held.isHeld()).isTrue();
		assertThat(held.extend(AT_MOST)).isFalse();
		assertThat(held.isHeld()).isFalse();
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> held.runFenced((term) -> term))
			.withMessageContaining("extension");
	}

	@Test
	void aReleaseAfterAnExtensionKeepsTheLockUntilTheLaterAtLeastFor() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ofSeconds(10)).orElseThrow();
		advance(Duration.ofSeconds(5));
		assertThat(held.extend(AT_MOST, Duration.ofSeconds(8))).isTrue();
		advance(Duration.ofSeconds(1));
		held.release();
		advance(Duration.ofSeconds(7).minusMillis(1));
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).as("8 s after the extension").isEmpty();
		advance(Duration.ofMillis(1));
		HeldLock next = this.b.tryLock("job", AT_MOST, Duration.ofSeconds(10)).orElseThrow();
		advance(Duration.ofSeconds(5));
		assertThat(next.extend(AT_MOST)).isTrue();
		next.release();
		advance(Duration.ofSeconds(5).minusMillis(1));
		assertThat(this.a.tryLock("job", AT_MOST, Duration.ZERO)).as("10 s after the acquisition").isEmpty();
		advance(Duration.ofMillis(1));
		assertThat(this.a.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void extendRejectsInvalidDurations() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThatIllegalArgumentException().isThrownBy(() -> held.extend(Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> held.extend(AT_MOST, AT_MOST.plusMillis(1)));
	}

	@Test
	void fencedWorkRunsForTheHolderAndNotAfterTheBeliefEnds() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(held.<Long>runFenced((term) -> term)).isEqualTo(held.term());
		this.nanos.addAndGet(Duration.ofSeconds(24).toNanos());
		int before = this.repository.statements;
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> held.runFenced((term) -> term))
			.withMessageContaining("atMostFor");
		assertThat(this.repository.statements).as("no statement once the belief has ended").isEqualTo(before);
	}

	/**
	 * Locks have no whole-lease watch (docs/explanation/invariants.md, known gaps): a
	 * forward step of the database clock frees a held lock at once, and another node
	 * takes it while the holder, on its own clock, still believes it holds it. Its fenced
	 * work is refused from the step on, and its release at the end of the run changes
	 * nothing.
	 */
	@Test
	void aForwardStepOfTheDatabaseClockLetsAnotherNodeTakeAHeldLockButRefusesTheHoldersFencedWork() throws Exception {
		List<String> committed = new ArrayList<>();
		List<HeldLock> holders = new ArrayList<>();
		assertThat(this.a.runLocked("job", Duration.ofSeconds(60), Duration.ZERO, true, (stale) -> {
			holders.add(stale);
			stale.runFenced((term) -> committed.add("a before the step"));
			this.repository.advanceDatabaseClock(Duration.ofSeconds(61));
			assertThatExceptionOfType(LockNotHeldException.class).as("expired at the database, not taken yet")
				.isThrownBy(() -> stale.runFenced((term) -> committed.add("a after the step")));
			HeldLock current = this.b.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
			holders.add(current);
			assertThat(stale.isHeld()).as("believed on the holder's own clock").isTrue();
			assertThatExceptionOfType(LockNotHeldException.class)
				.isThrownBy(() -> stale.runFenced((term) -> committed.add("a after the take")));
			current.runFenced((term) -> committed.add("b"));
		})).isTrue();
		assertThat(committed).containsExactly("a before the step", "b");
		assertThat(holders.get(1).term()).isGreaterThan(holders.get(0).term());
		assertThat(this.repository.row("lock:job").holder()).isEqualTo("b");
		assertThat(this.repository.row("lock:job").released()).as("by the stale holder's release").isFalse();
		assertThat(holders.get(1).isHeld()).isTrue();
	}

	@Test
	void aKeptAliveHolderLearnsWithinARoundThatAForwardStepOfTheDatabaseClockGaveItsLockAway() {
		ClusterLocks kept = keeping("a");
		List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		HeldLock stale = kept.tryLock("job", Duration.ofSeconds(2), Duration.ZERO).orElseThrow();
		stale.onLost(() -> lost.add("lost"));
		stale.keepAlive(Duration.ofHours(1));
		keepFor(kept, Duration.ofSeconds(1));
		this.repository.advanceDatabaseClock(KEEP.leaseDuration());
		HeldLock current = this.b.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(stale.isHeld()).isTrue();
		keepFor(kept, KEEP.renewInterval());
		assertThat(stale.isHeld()).isFalse();
		assertThat(lost).containsExactly("lost");
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> stale.runFenced((term) -> term));
		assertThat(current.<Long>runFenced((term) -> term)).isEqualTo(current.term());
	}

	@Test
	void fencedWorkAfterReleaseIsRefusedWithoutAStatement() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ofSeconds(10)).orElseThrow();
		held.release();
		int before = this.repository.statements;
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> held.runFenced((term) -> term))
			.withMessageContaining("released");
		assertThat(this.repository.statements).isEqualTo(before);
	}

	@Test
	void aFailedTryIsNotTakenAndThrowsNothing() {
		this.repository.failure = new IllegalStateException("connection lost");
		assertThat(this.a.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		this.repository.failure = null;
		assertThat(this.a.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void aFailedReleaseIsLoggedAndTheLockExpires() {
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		this.repository.failure = new IllegalStateException("connection lost");
		assertThat(held.release()).isFalse();
		assertThat(held.isHeld()).isFalse();
		this.repository.failure = null;
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
		advance(AT_MOST);
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void aStartedRunIsTheCurrentLockUntilItEndsAndIsRecordedWithItsOutcome() throws Exception {
		LockedRun outer = this.a.startRun("outer", AT_MOST, Duration.ZERO).orElseThrow();
		LockedRun inner = this.a.startRun("inner", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(this.a.currentLock()).contains(inner.lock());
		assertThat(this.a.startRun("inner", AT_MOST, Duration.ZERO)).as("taken").isEmpty();
		assertThat(this.a.recentRuns("inner")).singleElement()
			.extracting(LockRun::outcome)
			.isEqualTo(LockRun.Outcome.RUNNING);
		// Ended out of order: the other stays current.
		assertThat(outer.end(LockRun.Outcome.ENDED, true)).isTrue();
		assertThat(this.a.currentLock()).contains(inner.lock());
		assertThat(outer.end(LockRun.Outcome.ENDED, true)).as("twice").isFalse();
		assertThat(outer.lock().isHeld()).isFalse();
		// Ended on another thread: no longer this thread's current lock.
		Thread other = new Thread(() -> inner.end(LockRun.Outcome.ENDED, false));
		other.start();
		other.join(Duration.ofSeconds(10).toMillis());
		assertThat(this.a.currentLock()).isEmpty();
		assertThat(inner.lock().isHeld()).as("not released").isTrue();
		assertThat(this.a.recentRuns("inner")).singleElement()
			.extracting(LockRun::outcome)
			.isEqualTo(LockRun.Outcome.ENDED);
		assertThat(this.b.tryLock("outer", AT_MOST, Duration.ZERO)).as("released").isPresent();
		assertThat(this.b.tryLock("inner", AT_MOST, Duration.ZERO)).as("kept").isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> inner.end(LockRun.Outcome.RUNNING, true));
	}

	@Test
	void runLockedRunsTheTaskOnOneNodeAndReleasesOrKeepsTheLock() throws Exception {
		List<String> runs = new ArrayList<>();
		assertThat(this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> {
			runs.add("a");
			assertThat(this.a.currentLock()).contains(lock);
			assertThat(this.b.runLocked("job", AT_MOST, Duration.ZERO, true, (other) -> runs.add("b"))).isFalse();
		})).isTrue();
		assertThat(this.a.currentLock()).isEmpty();
		assertThat(this.b.runLocked("job", AT_MOST, Duration.ZERO, false, (lock) -> runs.add("b"))).isTrue();
		assertThat(this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> runs.add("a"))).isFalse();
		advance(AT_MOST);
		assertThat(this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> runs.add("a"))).isTrue();
		assertThat(runs).containsExactly("a", "b", "a");
	}

	@Test
	void runLockedReleasesWhenTheTaskThrows() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> {
				throw new IllegalStateException("boom");
			}));
		assertThat(this.a.currentLock()).isEmpty();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO)).isPresent();
	}

	@Test
	void theListenerHearsAcquisitionsSkipsHoldTimesAndRunsOnce() throws Exception {
		List<String> events = new ArrayList<>();
		ClusterLocks c = recordingNode("c", events);
		assertThat(c.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> {
			advance(Duration.ofSeconds(3));
			assertThat(c.runLocked("job", AT_MOST, Duration.ZERO, true, (inner) -> {
			})).as("same lock, nested").isFalse();
		})).isTrue();
		HeldLock kept = c.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		advance(Duration.ofSeconds(2));
		kept.release();
		kept.release();
		assertThat(c.runLocked("job", AT_MOST, Duration.ZERO, false, (lock) -> advance(Duration.ofSeconds(1))))
			.isTrue();
		assertThat(events).containsExactly("acquired job", "skipped job", "ended job PT3S", "run job COMPLETED",
				"acquired job", "ended job PT2S", "acquired job", "ended job PT1S", "run job COMPLETED");
	}

	@Test
	void recentRunsListRunningThenEndedRunsNewestFirstAndKeepAFew() throws Exception {
		List<LockRun> during = new ArrayList<>();
		this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> during.addAll(this.a.recentRuns("job")));
		assertThat(during).singleElement().satisfies((run) -> {
			assertThat(run.outcome()).isEqualTo(LockRun.Outcome.RUNNING);
			assertThat(run.endedAt()).isNull();
		});
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> {
				throw new IllegalStateException("boom");
			}));
		List<LockRun> runs = this.a.recentRuns("job");
		assertThat(runs).extracting(LockRun::outcome)
			.containsExactly(LockRun.Outcome.FAILED, LockRun.Outcome.COMPLETED);
		assertThat(runs.get(0).term()).isGreaterThan(runs.get(1).term());
		for (int i = 0; i < 10; i++) {
			this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> {
			});
		}
		assertThat(this.a.recentRuns("job")).hasSize(RunHistory.KEPT);
		assertThat(this.b.recentRuns("job")).as("another node's runs").isEmpty();
	}

	@Test
	void aRunIsPastAtMostForOnceAtMostForHasPassedOnTheLocalClock() throws Exception {
		List<List<LockRun>> seen = new ArrayList<>();
		this.a.runLocked("job", AT_MOST, Duration.ZERO, true, (lock) -> {
			advance(AT_MOST.minusMillis(1));
			seen.add(this.a.runsPastAtMostFor());
			assertThat(lock.isPastAtMostFor()).isFalse();
			advance(Duration.ofMillis(1));
			seen.add(this.a.runsPastAtMostFor());
			assertThat(lock.isPastAtMostFor()).isTrue();
		});
		assertThat(seen.get(0)).isEmpty();
		assertThat(seen.get(1)).singleElement().extracting(LockRun::name).isEqualTo("job");
		assertThat(this.a.runsPastAtMostFor()).as("after the run").isEmpty();
	}

	@Test
	void forceReleaseFreesTheLockWithANewTermAndFencesTheHolderOut() {
		assertThat(this.b.forceRelease("job")).isEmpty();
		HeldLock held = this.a.tryLock("job", AT_MOST, Duration.ofSeconds(10)).orElseThrow();
		long term = this.b.forceRelease("job").orElseThrow();
		assertThat(term).isGreaterThan(held.term());
		assertThat(this.b.findLocks()).singleElement().satisfies((lock) -> {
			assertThat(lock.term()).isEqualTo(term);
			assertThat(lock.held()).isFalse();
		});
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> held.runFenced((t) -> t));
		assertThat(held.release()).isFalse();
		assertThat(this.b.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow().term()).isGreaterThan(term);
	}

	private ClusterLocks recordingNode(String nodeId, List<String> events) {
		return new ClusterLocks(this.repository, nodeId, this.clock, Clock.systemUTC(), new LockRunListener() {

			@Override
			public void acquired(String name, long term) {
				events.add("acquired " + name);
			}

			@Override
			public void skipped(String name) {
				events.add("skipped " + name);
			}

			@Override
			public void ended(String name, long term, Duration heldFor) {
				events.add("ended " + name + " " + heldFor);
			}

			@Override
			public void runEnded(LockRun run) {
				events.add("run " + run.name() + " " + run.outcome());
			}

		});
	}

	@Test
	void locksAreRowsWithAReservedPrefix() {
		this.a.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(this.repository.row("job")).isNull();
		assertThat(ClusterLocks.key("job")).isEqualTo("lock:job");
	}

	@Test
	void invalidNamesAndDurationsAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.a.tryLock(" ", AT_MOST, Duration.ZERO));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.a.tryLock("x".repeat(ClusterLocks.MAX_NAME_LENGTH + 1), AT_MOST, Duration.ZERO));
		assertThat(this.a.tryLock("x".repeat(ClusterLocks.MAX_NAME_LENGTH), AT_MOST, Duration.ZERO)).isPresent();
		// MySQL and MariaDB would take it for 'job'.
		assertThatIllegalArgumentException().isThrownBy(() -> this.a.tryLock("job ", AT_MOST, Duration.ZERO))
			.withMessage("lock name 'job ' must not end with a space, which MySQL and MariaDB ignore when they compare"
					+ " names");
		assertThatIllegalArgumentException().isThrownBy(() -> this.a.tryLock("job", Duration.ZERO, Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> this.a.tryLock("job", AT_MOST, AT_MOST.plusMillis(1)))
			.withMessageContaining("atLeastFor");
		assertThatIllegalArgumentException().isThrownBy(() -> this.a.tryLock("job", AT_MOST, Duration.ofSeconds(-1)));
		assertThat(this.repository.statements).isOne();
		Optional<HeldLock> unused = this.b.tryLock("other", AT_MOST, AT_MOST);
		assertThat(unused).isPresent();
	}

	/**
	 * Runs spread over nodes whose schedulers fire for the same trigger: each waits a
	 * random time before its try, below the spread and a quarter of its atLeastFor, so
	 * that the winner's run still keeps the lock taken when the last node tries; plain
	 * tries and runs without atLeastFor do not wait, nor do nodes without a spread.
	 */
	@Test
	void aRunWaitsARandomTimeBelowTheSpreadAndAQuarterOfAtLeastForBeforeItTries() throws Exception {
		List<Duration> bounds = new ArrayList<>();
		List<Integer> statementsAtPause = new ArrayList<>();
		this.a.setRunSpread(Duration.ofMillis(100));
		this.a.setPause((nanos) -> {
			bounds.add(Duration.ofNanos(nanos));
			statementsAtPause.add(this.repository.statements);
		});
		this.b.setPause((nanos) -> bounds.add(Duration.ofNanos(nanos)));
		int before = this.repository.statements;
		assertThat(this.a.runLocked("job", AT_MOST, Duration.ofSeconds(1), true, (lock) -> {
		})).isTrue();
		assertThat(statementsAtPause).as("paused before the try").containsExactly(before);
		assertThat(this.a.runLocked("job2", AT_MOST, Duration.ofMillis(200), true, (lock) -> {
		})).isTrue();
		this.a.startRun("job3", AT_MOST, Duration.ofMillis(400)).orElseThrow().end(LockRun.Outcome.COMPLETED, true);
		assertThat(bounds).containsExactly(Duration.ofMillis(100), Duration.ofMillis(50), Duration.ofMillis(100));
		bounds.clear();
		assertThat(this.a.runLocked("job4", AT_MOST, Duration.ZERO, true, (lock) -> {
		})).isTrue();
		assertThat(this.a.tryLock("job5", AT_MOST, Duration.ofSeconds(1))).isPresent();
		assertThat(this.b.runLocked("job6", AT_MOST, Duration.ofSeconds(1), true, (lock) -> {
		})).isTrue();
		assertThat(bounds).as("no pause without atLeastFor, for a plain try, or without a spread").isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> this.a.setRunSpread(Duration.ofMillis(-1)));
	}

}
