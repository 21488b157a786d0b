package io.github.dbleader.autoconfigure.scoped;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import io.github.dbleader.autoconfigure.InvalidLeaderElectionPropertyException;
import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.partition.PartitionAutoConfiguration;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.scoped.LeaderScopedService;
import io.github.dbleader.election.scoped.LeaderScopedServices;
import io.github.dbleader.election.scoped.LeadershipContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderScopedServicesAutoConfiguration}: a node alone on an embedded H2
 * database leads at once, so its {@link LeaderScopedService} beans start; releasing its
 * leadership and closing the context stop them.
 */
class LeaderScopedServicesAutoConfigurationTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				PartitionAutoConfiguration.class, LeaderScopedServicesAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.node-id=node-a", "leader-election.lease-duration=1s",
				"leader-election.renew-interval=200ms");

	@Test
	void createsNothingWithoutALeaderScopedServiceBean() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(ElectionService.class)
			.doesNotHaveBean(LeaderScopedServices.class)
			.doesNotHaveBean(LeaderScopedServicesLifecycle.class));
	}

	@Test
	void createsNothingWithoutTheElection() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class)
			.withPropertyValues("leader-election.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ElectionService.class)
				.doesNotHaveBean(LeaderScopedServices.class));
	}

	@Test
	void theRunnerIsOneOfTheElectionServicesListeners() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class)
			.run((context) -> assertThat(context.getBeansOfType(LeadershipListener.class))
				.containsValue(context.getBean(LeaderScopedServices.class)));
	}

	@Test
	void aServiceIsStartedOnAGrantStoppedOnARevocationAndStartedAgainOnTheNextGrant() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class).run((context) -> {
			Recording service = context.getBean(Recording.class);
			Election election = context.getBean(ElectionService.class).findElection("default");
			LeadershipContext first = service.awaitStarts(1).get(0);
			assertThat(first.election()).isEqualTo("default");
			assertThat(first.term()).isEqualTo(election.term());
			assertThat(service.threads).singleElement().asString().startsWith("leader-scoped-recording-default");
			election.release();
			await().atMost(WAIT).until(first::isCancelled);
			assertThat(service.stopped).containsExactly(first);
			// It lets the other candidates take over first, for a lease; there are none.
			LeadershipContext second = service.awaitStarts(2).get(1);
			assertThat(second.term()).isGreaterThan(first.term());
			assertThat(second.isLeader()).isTrue();
		});
	}

	@Test
	void aServiceIsStoppedOnShutdownWhileThisNodeStillLeads() {
		AtomicReference<@Nullable Recording> stopped = new AtomicReference<>();
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class).run((context) -> {
			Recording service = context.getBean(Recording.class);
			service.awaitStarts(1);
			stopped.set(service);
			((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
			assertThat(service.stopped).hasSize(1);
			assertThat(service.leaderWhenStopped).containsExactly(true);
			assertThat(service.ended).isEqualTo(1);
		});
		assertThat(stopped.get()).isNotNull();
	}

	@Test
	void aServiceOfAnotherElectionJoinsItAtStartUp() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class)
			.withPropertyValues("leader-election.elections=", "test.election=jobs")
			.run((context) -> {
				assertThat(context.getBean(ElectionService.class).findElection("jobs")).isNotNull();
				assertThat(context.getBean(Recording.class).awaitStarts(1)).extracting(LeadershipContext::election)
					.containsExactly("jobs");
			});
	}

	@Test
	void aServiceOfAPartitionGroupRunsOnceForEachPartitionThisNodeOwns() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class)
			.withPropertyValues("leader-election.partitions.orders.count=3", "test.partition-group=orders")
			.run((context) -> {
				List<LeadershipContext> runs = context.getBean(Recording.class).awaitStarts(3);
				assertThat(runs).extracting(LeadershipContext::partition).containsExactlyInAnyOrder(0, 1, 2);
				assertThat(runs).extracting(LeadershipContext::partitionGroup).containsOnly("orders");
				assertThat(runs).extracting(LeadershipContext::election)
					.containsExactlyInAnyOrder("partition:orders:0", "partition:orders:1", "partition:orders:2");
				context.getBean(ElectionService.class).leave("partition:orders:1");
				LeadershipContext lost = runs.stream().filter((run) -> run.partition() == 1).findFirst().get();
				await().atMost(WAIT).until(lost::isCancelled);
				assertThat(runs).filteredOn((run) -> run.partition() != 1)
					.allSatisfy((run) -> assertThat(run.isCancelled()).isFalse());
			});
	}

	@Test
	void aNegativeStopTimeoutFailsStartUp() {
		this.contextRunner.withUserConfiguration(ServiceConfiguration.class)
			.withPropertyValues("leader-election.scoped-services.stop-timeout=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidLeaderElectionPropertyException.class)
				.hasMessageContaining("leader-election.scoped-services.stop-timeout"));
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		Recording recording(org.springframework.core.env.Environment environment,
				org.springframework.beans.factory.ObjectProvider<ElectionService> electionService) {
			return new Recording(environment.getProperty("test.election", LeaderScopedService.DEFAULT_ELECTION),
					environment.getProperty("test.partition-group"), electionService);
		}

	}

	/** Records its starts and stops; each start waits for the signal. */
	static final class Recording implements LeaderScopedService {

		final List<LeadershipContext> contexts = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		final List<LeadershipContext> stopped = new CopyOnWriteArrayList<>();

		final List<Boolean> leaderWhenStopped = new CopyOnWriteArrayList<>();

		volatile int ended;

		private final String election;

		private final @Nullable String partitionGroup;

		private final org.springframework.beans.factory.ObjectProvider<ElectionService> electionService;

		Recording(String election, @Nullable String partitionGroup,
				org.springframework.beans.factory.ObjectProvider<ElectionService> electionService) {
			this.election = election;
			this.partitionGroup = partitionGroup;
			this.electionService = electionService;
		}

		@Override
		public String election() {
			return this.election;
		}

		@Override
		public @Nullable String partitionGroup() {
			return this.partitionGroup;
		}

		@Override
		public void start(LeadershipContext context) throws InterruptedException {
			this.threads.add(Thread.currentThread().getName());
			this.contexts.add(context);
			try {
				while (!context.awaitCancellation(Duration.ofMillis(50))) {
					// The work of a leader would go here.
				}
			}
			finally {
				this.ended++;
			}
		}

		@Override
		public void stop(LeadershipContext context) {
			this.stopped.add(context);
			Election joined = this.electionService.getObject().findElection(context.election());
			this.leaderWhenStopped.add(joined != null && joined.isLeader());
		}

		List<LeadershipContext> awaitStarts(int count) {
			await().atMost(WAIT).until(() -> this.contexts.size() >= count);
			return List.copyOf(this.contexts);
		}

	}

}
