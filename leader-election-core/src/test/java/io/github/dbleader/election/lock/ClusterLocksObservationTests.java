package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.observation.DefaultLockCallObservationConvention;
import io.github.dbleader.election.observation.ObservedContexts;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Observations of {@link ClusterLocks}: one per call under a lock, with the lock and the
 * outcome (a lock taken elsewhere is a skip, not a success), current while the task runs;
 * one per fenced transaction of a lock, committed or refused.
 */
class ClusterLocksObservationTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	private final MonotonicClock clock = this.nanos::get;

	private final InMemoryLockRepository repository = new InMemoryLockRepository();

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private final ClusterLocks a = new ClusterLocks(this.repository, "a", this.clock);

	private final ClusterLocks b = new ClusterLocks(this.repository, "b", this.clock);

	ClusterLocksObservationTests() {
		this.a.setObservationRegistry(this.registry);
	}

	@Test
	void eachCallUnderALockIsObservedWithItsOutcome() throws Exception {
		AtomicReference<Observation> current = new AtomicReference<>();
		this.a.runLocked("report", AT_MOST, Duration.ZERO, true,
				(lock) -> current.set(this.registry.getCurrentObservation()));
		HeldLock elsewhere = this.b.tryLock("report", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(this.a.runLocked("report", AT_MOST, Duration.ZERO, true, (lock) -> {
		})).isFalse();
		elsewhere.release();
		assertThatIllegalStateException()
			.isThrownBy(() -> this.a.runLocked("report", AT_MOST, Duration.ZERO, true, (lock) -> {
				throw new IllegalStateException("the report failed");
			}));
		this.a.startRun("shedlock", AT_MOST, Duration.ZERO).orElseThrow().end(LockRun.Outcome.ENDED, true);
		assertThat(this.registry).hasHandledContextsThatSatisfy((contexts) -> {
			assertThat(ObservedContexts.describe(contexts)).containsExactly(
					"leader.election.lock.call lock=report outcome=completed",
					"leader.election.lock.call lock=report outcome=skipped",
					"leader.election.lock.call lock=report outcome=failed error=IllegalStateException",
					"leader.election.lock.call lock=shedlock outcome=ended");
			assertThat(current.get().getContext()).isSameAs(contexts.get(0));
			assertThat(ObservedContexts.highCardinality(contexts.get(0))).singleElement()
				.asString()
				.startsWith("term=");
			assertThat(ObservedContexts.highCardinality(contexts.get(1))).isEmpty();
		});
	}

	@Test
	void fencedTransactionsOfALockAreObservedCommittedOrRefused() {
		HeldLock held = this.a.tryLock("report", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(held.<Long>runFenced((term) -> term)).isEqualTo(held.term());
		held.release();
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> held.runFenced((term) -> term));
		assertThat(this.registry).hasHandledContextsThatSatisfy((contexts) -> {
			assertThat(ObservedContexts.describe(contexts)).containsExactly(
					"leader.election.fenced.transaction election=lock:report outcome=committed",
					"leader.election.fenced.transaction election=lock:report outcome=refused error=LockNotHeldException");
			assertThat(ObservedContexts.highCardinality(contexts.get(0))).containsExactly("term=" + held.term());
		});
	}

	@Test
	void aConventionOfOnesOwnNamesTheObservations() throws Exception {
		this.a.setObservationConvention(new DefaultLockCallObservationConvention() {

			@Override
			public String getName() {
				return "jobs.locked";
			}

		});
		this.a.runLocked("report", AT_MOST, Duration.ZERO, true, (lock) -> {
		});
		assertThat(this.registry).hasSingleObservationThat().hasNameEqualTo("jobs.locked");
	}

}
