package io.github.dbleader.autoconfigure.aop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.dbleader.autoconfigure.InvalidLeaderElectionPropertyException;
import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint.RunDescriptor;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpointAutoConfiguration;
import io.github.dbleader.autoconfigure.health.ElectionsHealthContributor;
import io.github.dbleader.autoconfigure.health.LeaderElectionHealthContributorAutoConfiguration;
import io.github.dbleader.autoconfigure.metrics.LeaderElectionMetricsAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyRun.Outcome;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the record of the {@code @LeaderOnly} calls ({@link LeaderOnlyRuns}) that
 * {@link LeaderOnlyAutoConfiguration} configures, as the leader endpoint, the election's
 * health and the meters show it: a run that hangs past its {@code maxRunTime}, and a run
 * interrupted when its leadership is lost. The runs wait on latches with timeouts of
 * their own, so that none can hang the test.
 */
class LeaderOnlyRunsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
				MetricsAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class,
				LeaderEndpointAutoConfiguration.class, LeaderElectionHealthContributorAutoConfiguration.class))
		.withUserConfiguration(JobsConfiguration.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"management.endpoints.web.exposure.include=leader", "leader-election.lease-duration=1s",
				"leader-election.renew-interval=200ms", "leader-election.node-id=me", "jobs.max-run-time=300ms");

	@Test
	void aRunPastItsMaxRunTimeTurnsTheElectionsHealthAndTheGaugeUntilItEnds() {
		this.contextRunner.withPropertyValues("leader-election.leader-only.history-size=2").run((context) -> {
			awaitLeadership(context);
			Jobs jobs = context.getBean(Jobs.class);
			HealthIndicator health = health(context);
			assertThat(overdue(context)).isZero();
			long started = System.nanoTime();
			CompletableFuture<Boolean> run = CompletableFuture.supplyAsync(jobs::hang);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE));
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(300));
			assertThat(overdue(context)).isOne();
			Health shown = health.health();
			assertThat(shown.getDetails()).containsEntry("role", "leader");
			assertThat(shown.getDetails().get("runsPastMaxRunTime"))
				.asInstanceOf(InstanceOfAssertFactories.list(Map.class))
				.singleElement()
				.satisfies((detail) -> assertThat(detail).containsEntry("method", "Jobs.hang")
					.containsEntry("maxRunTime", Duration.ofMillis(300))
					.containsKeys("term", "startedAt", "runningFor"));
			assertThat(recentRuns(context)).extracting(RunDescriptor::outcome).containsExactly(Outcome.RUNNING);
			jobs.release();
			assertThat(run.join()).isTrue();
			assertThat(health.health().getStatus()).isEqualTo(Status.UP);
			assertThat(overdue(context)).isZero();
			assertThat(recentRuns(context)).singleElement().satisfies((shownRun) -> {
				assertThat(shownRun.outcome()).isEqualTo(Outcome.COMPLETED);
				assertThat(shownRun.nodeId()).isEqualTo("me");
				assertThat(shownRun.term()).isPositive();
				assertThat(shownRun.endedAt()).isNotNull();
			});
			assertThat(context.getBean(MeterRegistry.class)
				.get("leader.election.leader.only.runs")
				.tags("election", "default", "outcome", "completed")
				.timer()
				.count()).isOne();
			// The history keeps the last two calls, skipped ones too.
			jobs.quick();
			context.getBean(ElectionService.class).halt();
			jobs.quick();
			assertThat(recentRuns(context)).extracting(RunDescriptor::outcome)
				.containsExactly(Outcome.SKIPPED, Outcome.COMPLETED);
			assertThat(recentRuns(context).get(0).term()).isNull();
		});
	}

	@Test
	void aRunThatAsksForItIsInterruptedWhenTheLeadershipIsLost() {
		this.contextRunner.run((context) -> {
			awaitLeadership(context);
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<Boolean> run = CompletableFuture.supplyAsync(jobs::waitForInterrupt);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> recentRuns(context).stream().anyMatch((shown) -> shown.outcome() == Outcome.RUNNING));
			context.getBean(ElectionService.class).election("default").release();
			assertThatExceptionOfType(CompletionException.class).isThrownBy(run::join)
				.withRootCauseInstanceOf(InterruptedException.class);
			assertThat(recentRuns(context)).extracting(RunDescriptor::outcome).containsExactly(Outcome.FAILED);
		});
	}

	@Test
	void invalidPropertiesFailStartUp() {
		this.contextRunner.withPropertyValues("leader-election.leader-only.history-size=-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidLeaderElectionPropertyException.class)
				.hasMessageContaining("leader-election.leader-only.history-size"));
		this.contextRunner.withPropertyValues("leader-election.leader-only.max-run-time=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidLeaderElectionPropertyException.class)
				.hasMessageContaining("leader-election.leader-only.max-run-time"));
	}

	@Test
	void backsOffForARecordOfTheApplicationsOwn() {
		LeaderOnlyRuns own = new LeaderOnlyRuns();
		this.contextRunner.withBean(LeaderOnlyRuns.class, () -> own)
			.run((context) -> assertThat(context).getBean(LeaderOnlyRuns.class).isSameAs(own));
	}

	@Test
	void noRecordWithoutAnElectionServiceAndTheCallsRunUnguarded() {
		this.contextRunner.withPropertyValues("leader-election.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LeaderOnlyRuns.class);
			assertThat(context.getBean(Jobs.class).quick()).isTrue();
		});
	}

	private static void awaitLeadership(AssertableApplicationContext context) {
		ElectionService service = context.getBean(ElectionService.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> service.election("default").isLeader());
	}

	private static HealthIndicator health(AssertableApplicationContext context) {
		return (HealthIndicator) context.getBean(ElectionsHealthContributor.class).getContributor("default");
	}

	private static double overdue(AssertableApplicationContext context) {
		return context.getBean(MeterRegistry.class)
			.get("leader.election.leader.only.overdue")
			.tag("election", "default")
			.gauge()
			.value();
	}

	private static List<RunDescriptor> recentRuns(AssertableApplicationContext context) {
		LeaderEndpoint.ElectionDescriptor election = context.getBean(LeaderEndpoint.class).election("default");
		assertThat(election).isNotNull();
		return election.recentRuns();
	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	static class Jobs {

		private final CountDownLatch release = new CountDownLatch(1);

		@LeaderOnly(maxRunTime = "${jobs.max-run-time}")
		public boolean hang() {
			return await(this.release);
		}

		/** Not advised: through the proxy to the target's latch. */
		public void release() {
			this.release.countDown();
		}

		@LeaderOnly(interruptOnLoss = true)
		public boolean waitForInterrupt() {
			try {
				return new CountDownLatch(1).await(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				throw new CompletionException(ex);
			}
		}

		@LeaderOnly
		public boolean quick() {
			return true;
		}

		private static boolean await(CountDownLatch latch) {
			try {
				return latch.await(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

	}

}
