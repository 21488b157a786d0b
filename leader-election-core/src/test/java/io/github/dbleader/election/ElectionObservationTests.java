package io.github.dbleader.election;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyAdvisor;
import io.github.dbleader.election.aop.LeaderOnlyInterceptor;
import io.github.dbleader.election.event.ObservationLeadershipListener;
import io.github.dbleader.election.observation.ObservedContexts;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Observations of {@code @LeaderOnly} calls (a skipped call is an outcome of its own, not
 * a success), of fenced transactions and of changes of leadership, on an in-memory
 * repository.
 */
class ElectionObservationTests {

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	/** The changes of leadership's, which come on the service's notification thread. */
	private final TestObservationRegistry changes = TestObservationRegistry.create();

	private final ElectionService service = new ElectionService(new InMemoryLeaseDatabase(),
			ElectionSettings.of(Duration.ofMillis(600), Duration.ofMillis(100)), "a",
			new ObservationLeadershipListener(this.changes, null));

	@AfterEach
	void stop() {
		this.service.stop();
	}

	@Test
	void eachLeaderOnlyCallIsObservedWithItsOutcomeAndIsCurrentWhileTheMethodRuns() {
		LeaderOnlyInterceptor interceptor = new LeaderOnlyInterceptor(() -> this.service, List::of);
		interceptor.setObservationRegistry(() -> this.registry);
		ProxyFactory factory = new ProxyFactory(new Jobs(this.registry));
		factory.addAdvisor(new LeaderOnlyAdvisor(interceptor));
		Jobs jobs = (Jobs) factory.getProxy();
		this.service.election("jobs");
		assertThat(jobs.report()).isNull();
		leadJobs();
		this.registry.clear();
		assertThat(jobs.report()).isNotNull();
		assertThatIllegalStateException().isThrownBy(jobs::fail);
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(jobs::refused);
		assertThatIllegalStateException().isThrownBy(jobs::refusedWithin);
		assertThat(this.registry).hasHandledContextsThatSatisfy(
				(contexts) -> assertThat(ObservedContexts.describe(contexts)).containsExactly(
						"leader.election.leader.only.call code.function=report code.namespace=" + Jobs.class.getName()
								+ " election=jobs outcome=completed",
						"leader.election.leader.only.call code.function=fail code.namespace=" + Jobs.class.getName()
								+ " election=jobs outcome=failed error=IllegalStateException",
						"leader.election.leader.only.call code.function=refused code.namespace=" + Jobs.class.getName()
								+ " election=jobs outcome=refused error=NotLeaderException",
						"leader.election.leader.only.call code.function=refusedWithin code.namespace="
								+ Jobs.class.getName() + " election=jobs outcome=refused error=IllegalStateException"));
		assertThat(jobs.current().getContext().getName()).isEqualTo("leader.election.leader.only.call");
	}

	@Test
	void aSkippedLeaderOnlyCallIsObservedAsSkipped() {
		LeaderOnlyInterceptor interceptor = new LeaderOnlyInterceptor(() -> this.service, List::of);
		interceptor.setObservationRegistry(() -> this.registry);
		ProxyFactory factory = new ProxyFactory(new Jobs(this.registry));
		factory.addAdvisor(new LeaderOnlyAdvisor(interceptor));
		assertThat(((Jobs) factory.getProxy()).report()).isNull();
		assertThat(this.registry).hasSingleObservationThat()
			.hasNameEqualTo("leader.election.leader.only.call")
			.hasLowCardinalityKeyValue("outcome", "skipped")
			.hasLowCardinalityKeyValue("election", "jobs")
			.doesNotHaveError();
	}

	@Test
	void fencedTransactionsAreObservedCommittedRefusedOrFailed() {
		this.service.setObservationRegistry(this.registry);
		Election election = this.service.election("jobs");
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> election.runFenced((term) -> term));
		leadJobs();
		this.registry.clear();
		AtomicReference<Observation> current = new AtomicReference<>();
		long term = election.runFenced((fencedTerm) -> {
			current.set(this.registry.getCurrentObservation());
			return fencedTerm;
		});
		assertThatIllegalStateException().isThrownBy(() -> election.runFenced((fencedTerm) -> {
			throw new IllegalStateException("the work failed");
		}));
		assertThat(this.registry).hasHandledContextsThatSatisfy((contexts) -> {
			assertThat(ObservedContexts.describe(contexts)).containsExactly(
					"leader.election.fenced.transaction election=jobs outcome=committed",
					"leader.election.fenced.transaction election=jobs outcome=failed error=IllegalStateException");
			assertThat(ObservedContexts.highCardinality(contexts.get(0))).containsExactly("term=" + term);
			assertThat(current.get().getContext()).isSameAs(contexts.get(0));
		});
	}

	@Test
	void aFencedTransactionOfAFollowerIsObservedRefused() {
		this.service.setObservationRegistry(this.registry);
		Election election = this.service.election("jobs");
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> election.runFenced((term) -> term));
		assertThat(this.registry).hasSingleObservationThat()
			.hasNameEqualTo("leader.election.fenced.transaction")
			.hasLowCardinalityKeyValue("outcome", "refused")
			.doesNotHaveHighCardinalityKeyValueWithKey("term");
	}

	@Test
	void grantsAndRevocationsAreObservedWithTheirReason() {
		leadJobs();
		long term = this.service.election("jobs").term();
		this.service.stop();
		assertThat(this.changes).hasHandledContextsThatSatisfy((contexts) -> {
			assertThat(ObservedContexts.describe(contexts)).containsExactly(
					"leader.election.leadership.change change=granted election=jobs reason=none",
					"leader.election.leadership.change change=revoked election=jobs reason=shutdown");
			assertThat(ObservedContexts.highCardinality(contexts.get(1))).containsExactly("node=a", "term=" + term);
		});
	}

	private void leadJobs() {
		Election election = this.service.election("jobs");
		this.service.start();
		await().atMost(Duration.ofSeconds(5)).until(election::isLeader);
	}

	static class Jobs {

		private final TestObservationRegistry registry;

		private final AtomicReference<Observation> current = new AtomicReference<>();

		Jobs(TestObservationRegistry registry) {
			this.registry = registry;
		}

		@LeaderOnly(election = "jobs")
		public Object report() {
			this.current.set(this.registry.getCurrentObservation());
			return "report";
		}

		@LeaderOnly(election = "jobs")
		public void fail() {
			throw new IllegalStateException("the job failed");
		}

		@LeaderOnly(election = "jobs")
		public void refused() {
			throw new NotLeaderException("jobs", "a", "the fence refused");
		}

		/**
		 * A refusal that the application's code wrapped: counted as the run history
		 * counts it.
		 */
		@LeaderOnly(election = "jobs")
		public void refusedWithin() {
			throw new IllegalStateException("the batch failed",
					new NotLeaderException("jobs", "a", "the fence refused"));
		}

		public Observation current() {
			return this.current.get();
		}

	}

}
