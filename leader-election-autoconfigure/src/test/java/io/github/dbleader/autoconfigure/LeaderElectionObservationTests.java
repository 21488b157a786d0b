package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import io.github.dbleader.autoconfigure.aop.LeaderOnlyAutoConfiguration;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.observation.DefaultLockCallObservationConvention;
import io.github.dbleader.election.observation.LockCallObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application's {@link ObservationRegistry} bean observes {@code @LeaderOnly} calls,
 * fenced transactions, calls under cluster locks and changes of leadership, with a
 * convention bean where there is one.
 */
class LeaderElectionObservationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
		.withUserConfiguration(ObservedConfiguration.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms");

	@Test
	void theApplicationsObservationRegistryObservesTheElection() {
		this.contextRunner.run((context) -> {
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			Election election = context.getBean(ElectionService.class).election("default");
			await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
			context.getBean(Job.class).run();
			election.runFenced((term) -> term);
			context.getBean(ClusterLocks.class)
				.runLocked("report", Duration.ofSeconds(5), Duration.ZERO, true, (lock) -> {
				});
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(
						() -> assertThat(registry).hasObservationWithNameEqualTo("leader.election.leadership.change")
							.that()
							.hasLowCardinalityKeyValue("change", "granted"));
			assertThat(registry).hasObservationWithNameEqualTo("leader.election.leader.only.call")
				.that()
				.hasLowCardinalityKeyValue("outcome", "completed")
				.hasLowCardinalityKeyValue("election", "default");
			assertThat(registry).hasObservationWithNameEqualTo("leader.election.fenced.transaction")
				.that()
				.hasLowCardinalityKeyValue("outcome", "committed");
			assertThat(registry).hasObservationWithNameEqualTo("jobs.locked")
				.that()
				.hasLowCardinalityKeyValue("lock", "report")
				.hasLowCardinalityKeyValue("outcome", "completed");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ObservedConfiguration {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

		@Bean
		LockCallObservationConvention lockCallObservationConvention() {
			return new DefaultLockCallObservationConvention() {

				@Override
				public String getName() {
					return "jobs.locked";
				}

			};
		}

		@Bean
		Job job() {
			return new Job();
		}

	}

	static class Job {

		@LeaderOnly
		public void run() {
		}

	}

}
