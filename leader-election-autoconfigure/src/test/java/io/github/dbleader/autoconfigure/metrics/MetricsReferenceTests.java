package io.github.dbleader.autoconfigure.metrics;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.partition.PartitionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnlyRun;
import io.github.dbleader.election.lock.ClusterLocks;
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
 * Keeps {@code docs/reference/metrics.md} in step with the meters: a node that has led,
 * run a heartbeat round, run and skipped a {@code @LeaderOnly} call, owned partitions and
 * taken, held and missed a cluster lock has every meter the page names, and the page
 * names every meter it has.
 */
class MetricsReferenceTests {

	private static final Path PAGE = Path.of("../docs/reference/metrics.md");

	/** The first cell of a row of the page's tables. */
	private static final Pattern METER = Pattern.compile("^\\| `(leader\\.election\\.[a-z.]+)` \\|", Pattern.MULTILINE);

	@Test
	void thePageNamesEveryMeterAndOnlyThose() throws Exception {
		Set<String> documented = new TreeSet<>();
		Matcher meter = METER.matcher(Files.readString(PAGE));
		while (meter.find()) {
			documented.add(meter.group(1));
		}
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					LeaderElectionAutoConfiguration.class, PartitionAutoConfiguration.class,
					MetricsAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
					"leader-election.partitions.orders.count=2")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> registry.find("leader.election.transitions").counter() != null
							&& registry.find("leader.election.partitions.transitions").counter() != null
							&& registry.find("leader.election.heartbeat").timer() != null);
				LeaderElectionMetrics metrics = context.getBean(LeaderElectionMetrics.class);
				metrics.heartbeat(service.nodeId(), 1, true, service.settings().statementTimeout());
				metrics.skipped("default", Object.class.getMethod("toString"));
				metrics.runEnded(new LeaderOnlyRun("default", service.nodeId(), 1, "Jobs.run", Instant.now(),
						Instant.now(), LeaderOnlyRun.Outcome.COMPLETED, null), Duration.ofMillis(5));
				ClusterLocks locks = context.getBean(ClusterLocks.class);
				locks.runLocked("report", Duration.ofSeconds(1), Duration.ZERO, true, (lock) -> {
				});
				context.getBean(LockMetrics.class).skipped("report");
				Set<String> registered = new TreeSet<>();
				registry.getMeters()
					.stream()
					.map((each) -> each.getId().getName())
					.filter((name) -> name.startsWith("leader.election."))
					.forEach(registered::add);
				assertThat(registered).as("the meters of a node, as docs/reference/metrics.md names them")
					.isEqualTo(documented);
			});
	}

}
