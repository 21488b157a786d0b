package io.github.dbleader.election;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.ClusterLockAdvisor;
import io.github.dbleader.election.aop.ClusterLockInterceptor;
import io.github.dbleader.election.aop.GuardedCall;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyAdvisor;
import io.github.dbleader.election.aop.LeaderOnlyInterceptor;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.InMemoryLockRepository;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link GuardedCall} tells what the guard of a {@code @LeaderOnly} or
 * {@code @ClusterLock} method decided about the outermost call it watches: run under
 * which term, or skipped and why, on an in-memory repository.
 */
class GuardedCallTests {

	private final ElectionService service = new ElectionService(new InMemoryLeaseDatabase(),
			ElectionSettings.of(Duration.ofMillis(600), Duration.ofMillis(100)), "a", LeadershipListener.NONE);

	private final InMemoryLockRepository locks = new InMemoryLockRepository();

	private final ClusterLocks here = new ClusterLocks(this.locks, "a");

	private final Recorder recorder = new Recorder();

	private final Jobs jobs = proxy();

	@AfterEach
	void stop() {
		this.service.stop();
	}

	@Test
	void aLeadersRunIsReportedWithItsTermOnceNestedCallsIncluded() throws Exception {
		Election election = this.service.election("jobs");
		this.service.start();
		await().atMost(Duration.ofSeconds(5)).until(election::isLeader);
		assertThat(GuardedCall.call(this.recorder, this.jobs::nested)).isEqualTo("nested report");
		assertThat(this.recorder.events).containsExactly("started " + election.term());
	}

	@Test
	void aFollowersCallIsReportedSkippedWithTheReason() throws Exception {
		this.service.election("jobs");
		assertThat(GuardedCall.call(this.recorder, this.jobs::report)).isNull();
		assertThat(this.recorder.events).containsExactly("skipped this node does not lead election 'jobs'");
	}

	@Test
	void aLockedRunIsReportedWithTheLocksTerm() throws Exception {
		assertThat(GuardedCall.call(this.recorder, this.jobs::locked)).isEqualTo(1);
		assertThat(this.recorder.events).singleElement().asString().startsWith("started ");
		long term = Long.parseLong(this.recorder.events.get(0).substring("started ".length()));
		assertThat(this.here.recentRuns("nightly")).singleElement()
			.satisfies((run) -> assertThat(run.term()).isEqualTo(term));
	}

	@Test
	void aCallWhoseLockIsHeldElsewhereIsReportedSkipped() throws Exception {
		HeldLock held = new ClusterLocks(this.locks, "b").tryLock("nightly", Duration.ofSeconds(30), Duration.ZERO)
			.orElseThrow();
		assertThat(GuardedCall.call(this.recorder, this.jobs::locked)).isEqualTo(0);
		assertThat(this.recorder.events).containsExactly("skipped lock 'nightly' is held elsewhere");
		assertThat(held.isHeld()).isTrue();
	}

	@Test
	void aFailedRunIsReportedStartedAndItsExceptionThrown() throws Exception {
		this.service.election("jobs");
		this.service.start();
		await().atMost(Duration.ofSeconds(5)).until(this.service.election("jobs")::isLeader);
		assertThatIllegalStateException().isThrownBy(() -> GuardedCall.call(this.recorder, () -> {
			this.jobs.fail();
			return null;
		}));
		assertThat(this.recorder.events).singleElement().asString().startsWith("started ");
	}

	@Test
	void callsOutsideAWatchedCallAreNotReported() throws Exception {
		this.service.election("jobs");
		assertThat(GuardedCall.call(this.recorder, () -> "no guarded call")).isEqualTo("no guarded call");
		assertThat(this.jobs.report()).isNull();
		assertThat(this.jobs.locked()).as("runs, the lock being free").isEqualTo(1);
		assertThat(this.recorder.events).isEmpty();
	}

	private Jobs proxy() {
		Jobs target = new Jobs();
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new LeaderOnlyAdvisor(new LeaderOnlyInterceptor(() -> this.service, List::of)));
		factory.addAdvisor(new ClusterLockAdvisor(new ClusterLockInterceptor(() -> this.here, Duration::parse)));
		Jobs proxy = (Jobs) factory.getProxy();
		target.self = proxy;
		return proxy;
	}

	static class Recorder implements GuardedCall.Listener {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void started(long term) {
			this.events.add("started " + term);
		}

		@Override
		public void skipped(String reason) {
			this.events.add("skipped " + reason);
		}

	}

	static class Jobs {

		/** The proxy, for calls of guarded methods from a guarded method. */
		Jobs self;

		@LeaderOnly(election = "jobs")
		public Object report() {
			return "report";
		}

		@LeaderOnly(election = "jobs")
		public Object nested() {
			return "nested " + this.self.report();
		}

		@LeaderOnly(election = "jobs")
		public void fail() {
			throw new IllegalStateException("the job failed");
		}

		@ClusterLock(name = "nightly", atMostFor = "PT30S", atLeastFor = "PT0S")
		public int locked() {
			return 1;
		}

	}

}
