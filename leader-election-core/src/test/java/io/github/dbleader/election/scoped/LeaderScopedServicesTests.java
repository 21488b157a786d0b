package io.github.dbleader.election.scoped;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.SteppedElectionService;
import io.github.dbleader.election.TakeOverPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link LeaderScopedServices} on an election service whose rounds the test runs, on a
 * fake clock and a lease repository in memory: grants start the services on threads of
 * their own, revocations stop them (signal, stop, interrupt, bounded wait), new grants
 * start them again. The services' threads are real, so the test waits for them with
 * Awaitility.
 */
class LeaderScopedServicesTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	private final Logger runLogger = (Logger) LoggerFactory.getLogger(ScopedRun.class);

	private LeaderScopedServices scoped = new LeaderScopedServices(WAIT);

	private SteppedElectionService node = new SteppedElectionService("a", this.scoped);

	@BeforeEach
	void captureLogs() {
		this.logged.start();
		this.runLogger.addAppender(this.logged);
	}

	@AfterEach
	void stop() {
		this.scoped.stop();
		this.runLogger.detachAppender(this.logged);
	}

	@Test
	void aGrantStartsTheServiceOnAThreadOfItsOwnWithTheElectionAndTheTerm() {
		Recording service = new Recording();
		LeadershipContext context = startedInDefault(service);
		assertThat(context.election()).isEqualTo("default");
		assertThat(context.nodeId()).isEqualTo("a");
		assertThat(context.term()).isEqualTo(this.node.service().findElection("default").term());
		assertThat(context.partitionGroup()).isNull();
		assertThat(context.partition()).isEqualTo(LeadershipContext.NO_PARTITION);
		assertThat(context.isLeader()).isTrue();
		assertThat(context.isCancelled()).isFalse();
		assertThat(service.threads).singleElement()
			.asString()
			.startsWith("leader-scoped-consumer-default")
			.isNotEqualTo(Thread.currentThread().getName());
	}

	@Test
	void aRevocationSignalsTheServiceCallsItsStopThenInterruptsItsThreadAndWaitsForIt() {
		// It ignores the signal: it waits on a latch of its own until interrupted.
		Recording service = new Recording() {
			@Override
			void work(LeadershipContext context) throws InterruptedException {
				try {
					new CountDownLatch(1).await();
				}
				catch (InterruptedException ex) {
					this.events.add("interrupted, cancelled " + context.isCancelled());
					throw ex;
				}
			}
		};
		LeadershipContext context = startedInDefault(service);
		this.node.service().findElection("default").release();
		// The revocation's callback returned once the service's thread ended.
		assertThat(service.events).containsExactly("start " + context.term(), "stop, cancelled true",
				"interrupted, cancelled true");
		assertThat(service.ended).isEqualTo(1);
		assertThat(context.isCancelled()).isTrue();
		assertThat(context.isLeader()).isFalse();
		assertThat(warnings()).isEmpty();
		assertThat(this.logged.list).extracting(ILoggingEvent::getFormattedMessage)
			.contains("Leader-scoped service 'consumer' stopped in election 'default' (term " + context.term()
					+ ") (RELEASED)");
	}

	@Test
	void aNewGrantStartsTheServiceAgainWithTheNewTerm() {
		Recording service = new Recording();
		start(Map.of("consumer", service));
		long first = this.node.roundsUntilLeader("default");
		service.awaitStarts(1);
		this.node.service().findElection("default").release();
		long second = this.node.roundsUntilLeader("default");
		List<LeadershipContext> contexts = service.awaitStarts(2);
		assertThat(second).isGreaterThan(first);
		assertThat(contexts).extracting(LeadershipContext::term).containsExactly(first, second);
		assertThat(contexts.get(0).isCancelled()).isTrue();
		assertThat(contexts.get(1).isLeader()).isTrue();
		assertThat(service.events).containsExactly("start " + first, "stop, cancelled true", "start " + second);
	}

	@Test
	void aServiceThatIgnoresTheSignalAndTheInterruptIsWaitedForOnlyTheStopTimeout() {
		restart(new LeaderScopedServices(Duration.ofMillis(200)));
		AtomicBoolean released = new AtomicBoolean();
		Recording service = new Recording() {
			@Override
			void work(LeadershipContext context) {
				while (!released.get()) {
					// Swallows every interrupt.
					Thread.interrupted();
					Thread.onSpinWait();
				}
			}
		};
		start(Map.of("stubborn", service));
		this.node.roundsUntilLeader("default");
		service.awaitStarts(1);
		long started = System.nanoTime();
		this.node.service().findElection("default").release();
		Duration waited = Duration.ofNanos(System.nanoTime() - started);
		try {
			assertThat(waited).isBetween(Duration.ofMillis(200), Duration.ofSeconds(3));
			assertThat(service.ended).isZero();
			assertThat(warnings()).singleElement()
				.asString()
				.contains("Leader-scoped service 'stubborn' did not stop in election 'default'")
				.contains("(RELEASED) in time: its thread 'leader-scoped-stubborn-default' is left running");
		}
		finally {
			released.set(true);
		}
		await().atMost(WAIT).until(() -> service.ended == 1);
	}

	@Test
	void aServiceThatThrowsIsLoggedAtWarnOnceNotStartedAgainInTheTermAndTheElectionGoesOn() {
		Recording service = new Recording() {
			@Override
			void work(LeadershipContext context) {
				throw new IllegalStateException("broker unreachable");
			}
		};
		start(Map.of("consumer", service));
		long term = this.node.roundsUntilLeader("default");
		service.awaitStarts(1);
		await().atMost(WAIT).until(() -> !warnings().isEmpty());
		for (int i = 0; i < 10; i++) {
			this.node.round();
		}
		Election election = this.node.service().findElection("default");
		assertThat(election.isLeader()).isTrue();
		assertThat(election.term()).isEqualTo(term);
		assertThat(service.events).containsExactly("start " + term);
		assertThat(this.logged.list).filteredOn((event) -> event.getLevel() == Level.WARN)
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.getFormattedMessage()).isEqualTo("Leader-scoped service 'consumer' failed in election "
						+ "'default' (term " + term + "); it starts again at the next grant");
				assertThat(event.getThrowableProxy().getMessage()).isEqualTo("broker unreachable");
			});
		// Its stop is still called, so that it can clean up what it started.
		election.release();
		assertThat(service.events).containsExactly("start " + term, "stop, cancelled true");
	}

	@Test
	void aServiceOfAPartitionGroupRunsOnceForEachPartitionThisNodeOwnsAndStopsWithEach() {
		Recording partitioned = new Recording() {
			@Override
			public String partitionGroup() {
				return "orders";
			}
		};
		Recording ofDefault = new Recording();
		ElectionService service = this.node.service();
		service.partitionElection("partition:orders:0", TakeOverPolicy.ALWAYS);
		service.partitionElection("partition:orders:1", TakeOverPolicy.ALWAYS);
		start(Map.of("partitioned", partitioned, "ofDefault", ofDefault));
		long term0 = this.node.roundsUntilLeader("partition:orders:0");
		long term1 = this.node.roundsUntilLeader("partition:orders:1");
		List<LeadershipContext> contexts = partitioned.awaitStarts(2);
		assertThat(contexts).extracting(LeadershipContext::partitionGroup).containsOnly("orders");
		assertThat(contexts).extracting(LeadershipContext::partition).containsExactlyInAnyOrder(0, 1);
		assertThat(contexts).extracting(LeadershipContext::election, LeadershipContext::term)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("partition:orders:0", term0),
					org.assertj.core.groups.Tuple.tuple("partition:orders:1", term1));
		assertThat(ofDefault.awaitStarts(1)).extracting(LeadershipContext::election).containsExactly("default");
		service.leave("partition:orders:1");
		LeadershipContext lost = contexts.stream().filter((context) -> context.partition() == 1).findFirst().get();
		LeadershipContext kept = contexts.stream().filter((context) -> context.partition() == 0).findFirst().get();
		assertThat(lost.isCancelled()).isTrue();
		assertThat(kept.isCancelled()).isFalse();
		assertThat(partitioned.ended).isEqualTo(1);
	}

	@Test
	void aServiceOfAnElectionLedBeforeTheRunnerStartsStartsAtOnceAndOnlyOnce() {
		this.node.service().start();
		long term = this.node.roundsUntilLeader("default");
		Recording service = new Recording();
		start(Map.of("consumer", service));
		assertThat(service.awaitStarts(1)).extracting(LeadershipContext::term).containsExactly(term);
		this.node.round();
		this.scoped.granted("default", "a", term);
		assertThat(service.events).containsExactly("start " + term);
	}

	@Test
	void stoppingTheRunnerStopsEveryServiceWhileTheNodeStillLeadsAndStartsNoneAfter() {
		Recording service = new Recording();
		start(Map.of("consumer", service));
		long term = this.node.roundsUntilLeader("default");
		service.awaitStarts(1);
		this.scoped.stop();
		assertThat(this.scoped.isRunning()).isFalse();
		assertThat(service.events).containsExactly("start " + term, "stop, cancelled true");
		assertThat(service.leaderWhenStopped).containsExactly(true);
		assertThat(service.ended).isEqualTo(1);
		this.node.service().findElection("default").release();
		this.node.roundsUntilLeader("default");
		assertThat(service.events).hasSize(2);
	}

	@Test
	void fencedWorkOfTheContextCommitsUnderItsTermOnly() {
		LeadershipContext context = startedInDefault(new Recording());
		long first = context.term();
		assertThat(context.<Long>runFenced((term) -> term)).isEqualTo(first);
		this.node.service().findElection("default").release();
		this.node.roundsUntilLeader("default");
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> context.runFenced((term) -> term))
			.withMessageContaining("term " + first + " ended");
	}

	@Test
	void aServiceNamingAnInvalidElectionFailsTheStartNamingTheService() {
		Recording service = new Recording() {
			@Override
			public String election() {
				return " ";
			}
		};
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> start(Map.of("consumer", service)))
			.withMessageStartingWith("Leader-scoped service 'consumer' names an invalid election: ");
		assertThat(this.scoped.isRunning()).isFalse();
	}

	/**
	 * Start the service as 'consumer', make this node lead 'default', and wait for the
	 * start.
	 */
	private LeadershipContext startedInDefault(Recording service) {
		start(Map.of("consumer", service));
		this.node.roundsUntilLeader("default");
		return service.awaitStarts(1).get(0);
	}

	private void start(Map<String, LeaderScopedService> services) {
		this.node.service().start();
		this.scoped.start(this.node.service(), services);
	}

	private void restart(LeaderScopedServices runner) {
		this.scoped = runner;
		this.node = new SteppedElectionService("a", runner);
	}

	private List<String> warnings() {
		return this.logged.list.stream()
			.filter((event) -> event.getLevel() == Level.WARN)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

	/**
	 * Records its starts and stops; its work waits for the signal unless a subclass does
	 * something else.
	 */
	private class Recording implements LeaderScopedService {

		final List<String> events = new CopyOnWriteArrayList<>();

		final List<LeadershipContext> contexts = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		final List<Boolean> leaderWhenStopped = new CopyOnWriteArrayList<>();

		volatile int ended;

		@Override
		public void start(LeadershipContext context) throws Exception {
			this.events.add("start " + context.term());
			this.threads.add(Thread.currentThread().getName());
			this.contexts.add(context);
			try {
				work(context);
			}
			finally {
				this.ended++;
			}
		}

		void work(LeadershipContext context) throws Exception {
			while (!context.awaitCancellation(Duration.ofMillis(50))) {
				// A loop of work would go here.
			}
		}

		@Override
		public void stop(LeadershipContext context) {
			this.events.add("stop, cancelled " + context.isCancelled());
			Election election = LeaderScopedServicesTests.this.node.service().findElection(context.election());
			this.leaderWhenStopped.add(election != null && election.isLeader());
		}

		List<LeadershipContext> awaitStarts(int count) {
			await().atMost(WAIT).until(() -> this.contexts.size() >= count);
			return List.copyOf(this.contexts);
		}

	}

}
