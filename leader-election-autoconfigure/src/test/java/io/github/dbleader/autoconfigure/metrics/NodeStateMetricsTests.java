package io.github.dbleader.autoconfigure.metrics;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.FailingLeaseRepositoryConfiguration;
import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the {@code leader.election.node.state} gauges of
 * {@link LeaderElectionMetrics}: the node-level states that make health DOWN are meters
 * too, each a series from the start.
 */
class NodeStateMetricsTests {

	private static final Map<String, Double> HEALTHY = Map.of("waiting_for_database", 0.0, "database_unreachable", 0.0,
			"heartbeat_failing", 0.0, "node_id_in_use", 0.0);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataSourceAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
						MetricsAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=1s", "leader-election.renew-interval=200ms",
				"leader-election.node-id=me", "leader-election.jdbc.initialize-schema=always");

	@Test
	void everyStateIsASeriesAtZeroOnAHealthyNode() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			assertThat(states(registry)).isEqualTo(HEALTHY);
			// Registered at 0 when bound, before any round: a fresh registry, not the
			// context's,
			// whose count depends on how slow the first rounds on a loaded machine were.
			SimpleMeterRegistry bound = new SimpleMeterRegistry();
			new LeaderElectionMetrics(() -> service).bindTo(bound);
			assertThat(bound.get("leader.election.heartbeat.slow").counter().count())
				.as("counted from 0, before the first slow round")
				.isZero();
		});
	}

	@Test
	void waitingForTheDatabaseAtStartUp() {
		RefusingDataSource dataSource = new RefusingDataSource(
				"jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		this.contextRunner.withBean(DataSource.class, () -> dataSource).run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5)).until(service::isWaitingForDatabase);
			assertThat(states(registry)).containsEntry("waiting_for_database", 1.0)
				.containsEntry("database_unreachable", 0.0)
				.containsEntry("heartbeat_failing", 0.0)
				.containsEntry("node_id_in_use", 0.0);
			dataSource.up.set(true);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			assertThat(states(registry)).isEqualTo(HEALTHY);
		});
	}

	@Test
	void databaseUnreachableOnceTheHeartbeatHasFailedForLeaseMinusGuard() {
		this.contextRunner.withUserConfiguration(FailingLeaseRepositoryConfiguration.class).run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			context.getBean(FailingLeaseRepositoryConfiguration.class).failing().set(true);
			await().atMost(Duration.ofSeconds(5)).until(() -> !service.election("default").isDatabaseReachable());
			assertThat(states(registry)).containsEntry("database_unreachable", 1.0)
				.containsEntry("heartbeat_failing", 0.0)
				.containsEntry("waiting_for_database", 0.0);
			context.getBean(FailingLeaseRepositoryConfiguration.class).failing().set(false);
			await().atMost(Duration.ofSeconds(5)).until(() -> states(registry).equals(HEALTHY));
		});
	}

	@Test
	void heartbeatFailingWhileTheDatabaseRefusesTheHeartbeatForLeaseMinusGuard() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			jdbc.execute("ALTER TABLE leader_election_lease_nodes RENAME TO leader_election_lease_nodes_away");
			try {
				await().atMost(Duration.ofSeconds(5)).until(() -> states(registry).get("heartbeat_failing") == 1.0);
				assertThat(states(registry)).containsEntry("database_unreachable", 0.0);
			}
			finally {
				jdbc.execute("ALTER TABLE leader_election_lease_nodes_away RENAME TO leader_election_lease_nodes");
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> states(registry).equals(HEALTHY));
		});
	}

	@Test
	void nodeIdInUseWhileAnotherInstanceUsesIt() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			new JdbcTemplate(context.getBean(DataSource.class))
				.update("UPDATE leader_election_lease_nodes SET instance_id = 'another-instance' WHERE node_id = 'me'");
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isNodeIdInUseElsewhere());
			assertThat(states(registry)).containsEntry("node_id_in_use", 1.0);
		});
	}

	private static Map<String, Double> states(MeterRegistry registry) {
		Map<String, Double> states = new TreeMap<>();
		registry.find("leader.election.node.state")
			.gauges()
			.forEach((gauge) -> states.put(gauge.getId().getTag("state"), gauge.value()));
		return states;
	}

	/** An H2 data source that refuses connections, as a server that is away does. */
	static class RefusingDataSource extends AbstractDataSource {

		final AtomicBoolean up = new AtomicBoolean();

		private final SimpleDriverDataSource target;

		RefusingDataSource(String url) {
			this.target = new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", "");
		}

		@Override
		public Connection getConnection() throws SQLException {
			if (!this.up.get()) {
				throw new SQLTransientConnectionException("Connection refused (simulated)");
			}
			return this.target.getConnection();
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

	}

}
