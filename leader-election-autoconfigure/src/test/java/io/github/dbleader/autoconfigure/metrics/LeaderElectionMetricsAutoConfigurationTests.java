package io.github.dbleader.autoconfigure.metrics;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.BlockedTakeOvers;
import io.github.dbleader.autoconfigure.InvalidLeaderElectionPropertyException;
import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.partition.PartitionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderElectionMetricsAutoConfiguration}.
 */
class LeaderElectionMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataSourceAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
						MetricsAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms");

	@Test
	void recordsLeadershipTermTransitionsAndHeartbeats() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.find("leader.election.transitions").tag("type", "granted").counter() != null);
			assertThat(registry.get("leader.election.leader").tag("election", "default").gauge().value()).isEqualTo(1);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.get("leader.election.term").tag("election", "default").gauge().value() > 0);
			assertThat(registry.get("leader.election.transitions")
				.tags("election", "default", "type", "granted", "reason", "none")
				.counter()
				.count()).isEqualTo(1);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.find("leader.election.heartbeat").tags("outcome", "success").timer() != null);
			service.election("default").release();
			assertThat(registry.get("leader.election.leader").tag("election", "default").gauge().value()).isZero();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.find("leader.election.transitions")
					.tags("election", "default", "type", "revoked", "reason", "released")
					.counter() != null);
		});
	}

	@Test
	void countsRoundsThatSucceedButTakeOverHalfTheStatementTimeout() {
		this.contextRunner.withPropertyValues("leader-election.statement-timeout=100ms").run((context) -> {
			LeaderElectionMetrics metrics = context.getBean(LeaderElectionMetrics.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			metrics.heartbeat("n", 1, true, Duration.ofMillis(80));
			metrics.heartbeat("n", 1, false, Duration.ofMillis(120));
			metrics.heartbeat("n", 1, true, Duration.ofMillis(40));
			assertThat(registry.get("leader.election.heartbeat.slow").counter().count()).isOne();
			assertThat(registry.get("leader.election.heartbeat")
				.tags("outcome", "success")
				.timer()
				.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(80);
		});
	}

	@Test
	void countsFailedRoundsByKindOfFailure() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			assertThat(registry.find("leader.election.heartbeat.failures").functionCounters())
				.extracting((counter) -> counter.getId().getTag("kind"))
				.containsExactlyInAnyOrder("unreachable", "timed_out", "conflict", "constraint_violated", "schema",
						"permission_denied", "other");
			assertThat(registry.find("leader.election.heartbeat.failures").functionCounters())
				.allMatch((counter) -> counter.count() == 0);
			// A lease that no round can take over (once it has watched it for a lease):
			// every round fails its take-over.
			BlockedTakeOvers.block(context.getBean(DataSource.class));
			service.election("blocked");
			await().atMost(Duration.ofSeconds(10)).until(() -> failures(registry, "constraint_violated") >= 2);
			assertThat(failures(registry, "unreachable")).isZero();
			service.leave("blocked");
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").heartbeatFailure().isEmpty());
			// The same rounds as the heartbeat timer's failures (timed on the
			// notification thread).
			long failed = (long) failures(registry, "constraint_violated");
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.get("leader.election.heartbeat")
					.tags("outcome", "failure")
					.timer()
					.count() == failed);
		});
	}

	private static double failures(MeterRegistry registry, String kind) {
		return registry.get("leader.election.heartbeat.failures").tag("kind", kind).functionCounter().count();
	}

	@Test
	void partitionsHaveMetersPerGroupNotPerPartition() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(PartitionAutoConfiguration.class))
			.withPropertyValues("leader-election.partitions.orders.count=3")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				// The only node owns the three partitions once it has settled.
				await().atMost(Duration.ofSeconds(20))
					.until(() -> registry.find("leader.election.partitions.owned")
						.tag("group", "orders")
						.gauge() != null
							&& registry.get("leader.election.partitions.owned")
								.tag("group", "orders")
								.gauge()
								.value() == 3);
				// Counted as the events arrive, on the notification thread: after the
				// gauge.
				await().atMost(Duration.ofSeconds(5)).until(() -> partitionsGranted(registry) >= 3);
				assertThat(partitionsGranted(registry)).isEqualTo(3);
				assertThat(registry.find("leader.election.leader").gauges())
					.extracting((gauge) -> gauge.getId().getTag("election"))
					.containsExactly("default");
				assertThat(registry.find("leader.election.transitions").counters())
					.allMatch((counter) -> "default".equals(counter.getId().getTag("election")));
			});
	}

	private static double partitionsGranted(MeterRegistry registry) {
		Counter granted = registry.find("leader.election.partitions.transitions")
			.tags("group", "orders", "type", "granted", "reason", "none")
			.counter();
		return (granted != null) ? granted.count() : 0;
	}

	@Test
	void electionsBeyondThePerElectionLimitHaveNoMetersOfTheirOwnButTheTotalsCountThem() {
		this.contextRunner
			.withPropertyValues("leader-election.elections=a,b,c", "leader-election.metrics.per-election-limit=2")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> service.election("a").isLeader() && service.election("b").isLeader()
							&& service.election("c").isLeader());
				Set<String> metered = registry.find("leader.election.leader")
					.gauges()
					.stream()
					.map((gauge) -> gauge.getId().getTag("election"))
					.collect(Collectors.toSet());
				assertThat(metered).hasSize(2).isSubsetOf("a", "b", "c");
				assertThat(registry.find("leader.election.term").gauges()).hasSize(2);
				assertThat(registry.get("leader.election.elections").gauge().value()).isEqualTo(3);
				assertThat(registry.get("leader.election.elections.led").gauge().value()).isEqualTo(3);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> registry.find("leader.election.elections.transitions")
						.tags("type", "granted", "reason", "none")
						.counter() != null
							&& registry.get("leader.election.elections.transitions")
								.tags("type", "granted", "reason", "none")
								.counter()
								.count() == 3);
				assertThat(registry.find("leader.election.transitions").counters())
					.extracting((counter) -> counter.getId().getTag("election"))
					.hasSize(2)
					.allMatch(metered::contains);
				service.election("c").release();
				assertThat(registry.get("leader.election.elections.led").gauge().value()).isEqualTo(2);
			});
	}

	@Test
	void aNegativePerElectionLimitFailsStartUp() {
		this.contextRunner.withPropertyValues("leader-election.metrics.per-election-limit=-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidLeaderElectionPropertyException.class)
				.hasMessageContaining("leader-election.metrics.per-election-limit"));
	}

	@Test
	void backsOffWithoutMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					LeaderElectionAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderElectionMetrics.class));
	}

}
