package io.github.dbleader.autoconfigure.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockRepository;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LockMetrics} as {@link LeaderElectionMetricsAutoConfiguration} wires
 * them into the auto-configured {@link ClusterLocks}.
 */
class LockMetricsTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				MetricsAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms");

	@Test
	void countsAcquisitionsAndSkipsAndTimesTheHoldByLock() throws Exception {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockMetrics.class);
			ClusterLocks locks = context.getBean(ClusterLocks.class);
			ClusterLocks elsewhere = new ClusterLocks(context.getBean(LockRepository.class), "elsewhere");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			locks.runLocked("report", AT_MOST, Duration.ZERO, true, (lock) -> Thread.sleep(20));
			locks.runLocked("report", AT_MOST, Duration.ZERO, false, (lock) -> {
			});
			locks.runLocked("report", AT_MOST, Duration.ZERO, true, (lock) -> {
			});
			elsewhere.tryLock("cleanup", AT_MOST, Duration.ZERO).orElseThrow();
			locks.runLocked("cleanup", AT_MOST, Duration.ZERO, true, (lock) -> {
			});
			assertThat(registry.get("leader.election.lock.acquisitions").tag("lock", "report").counter().count())
				.isEqualTo(2);
			assertThat(registry.get("leader.election.lock.skips").tag("lock", "report").counter().count()).isOne();
			assertThat(registry.get("leader.election.lock.skips").tag("lock", "cleanup").counter().count()).isOne();
			assertThat(registry.find("leader.election.lock.acquisitions").tag("lock", "cleanup").counter()).isNull();
			Timer held = registry.get("leader.election.lock.held").tag("lock", "report").timer();
			assertThat(held.count()).isEqualTo(2);
			assertThat(held.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(20);
		});
	}

	@Test
	void countsTheRunsUnderWayPastAtMostForWhileTheyOverrun() throws Exception {
		this.contextRunner.run((context) -> {
			ClusterLocks locks = context.getBean(ClusterLocks.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			List<Double> seen = new ArrayList<>();
			locks.runLocked("report", Duration.ofMillis(300), Duration.ZERO, true, (lock) -> {
				seen.add(overdue(registry, "report"));
				await().atMost(Duration.ofSeconds(5)).until(lock::isPastAtMostFor);
				seen.add(overdue(registry, "report"));
				assertThat(registry.find("leader.election.lock.held").timer())
					.as("the timer records the run only when it ends")
					.isNull();
			});
			assertThat(seen).as("within atMostFor, then past it").containsExactly(0.0, 1.0);
			assertThat(overdue(registry, "report")).as("after the run").isZero();
		});
	}

	private static double overdue(MeterRegistry registry, String lock) {
		return registry.get("leader.election.lock.overdue").tag("lock", lock).gauge().value();
	}

	@Test
	void backsOffWhenUserDefinesLockMetrics() {
		this.contextRunner.withBean("myLockMetrics", LockMetrics.class, LockMetrics::new)
			.run((context) -> assertThat(context).hasSingleBean(LockMetrics.class).hasBean("myLockMetrics"));
	}

}
