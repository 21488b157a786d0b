package io.github.dbleader.autoconfigure.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.BlockedTakeOvers;
import io.github.dbleader.autoconfigure.FaultyDatabaseConfiguration;
import io.github.dbleader.autoconfigure.FailingLeaseRepositoryConfiguration;
import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.partition.PartitionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.lock.ClusterLocks;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tests for {@link LeaderElectionHealthContributorAutoConfiguration}.
 */
class LeaderElectionHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				LeaderElectionAutoConfiguration.class, LeaderElectionHealthContributorAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=1s", "leader-election.renew-interval=200ms",
				"leader-election.node-id=me", "leader-election.elections=default,jobs");

	@Test
	void contributesOneIndicatorPerElection() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasBean("leaderHealthContributor");
			CompositeHealthContributor contributor = context.getBean(ElectionsHealthContributor.class);
			assertThat(EntryNames.of(contributor)).containsExactly("default", "jobs");
			assertThat(contributor.getContributor("unknown")).isNull();
		});
	}

	@Test
	void contributesOneIndicatorPerPartitionGroupInsteadOfOnePerPartition() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(PartitionAutoConfiguration.class))
			.withPropertyValues("leader-election.partitions.orders.count=3")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> service.findElection(PartitionGroup.electionName("orders", 2)) != null);
				CompositeHealthContributor contributor = context.getBean(ElectionsHealthContributor.class);
				assertThat(EntryNames.of(contributor)).containsExactly("default", "jobs", "partitions-orders");
				assertThat(contributor.getContributor(PartitionGroup.electionName("orders", 2))).isNull();
				HealthIndicator group = indicator(contributor, "partitions-orders");
				// The only node owns every partition once the settle time has passed.
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(group.health().getDetails()).containsEntry("owns",
							new TreeSet<>(List.of(0, 1, 2))));
				assertThat(group.health().getStatus()).isEqualTo(Status.UP);
				assertThat(group.health().getDetails()).containsEntry("partitions", 3);
			});
	}

	@Test
	void leaderIsUpWithDetails() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			Health health = indicator(context.getBean(ElectionsHealthContributor.class), "default").health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("role", "leader").containsEntry("leader", "me");
			assertThat((Long) health.getDetails().get("term")).isPositive();
		});
	}

	@Test
	void followerIsUp() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			service.election("default").release();
			Health health = indicator(context.getBean(ElectionsHealthContributor.class), "default").health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("role", "follower");
		});
	}

	@Test
	void downWhenTheDatabaseIsUnreachable() {
		this.contextRunner.withUserConfiguration(FailingLeaseRepositoryConfiguration.class).run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			HealthIndicator indicator = indicator(context.getBean(ElectionsHealthContributor.class), "default");
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			context.getBean(FailingLeaseRepositoryConfiguration.class).failing().set(true);
			// Still UP while the heartbeat fails for less than lease - guard (800ms),
			// with how long it has failed; then DOWN, and this node no longer leads.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> service.election("default").databaseUnreachableFor().isPresent());
			Health failing = indicator.health();
			if (service.election("default").isDatabaseReachable()) {
				assertThat(failing.getStatus()).isEqualTo(Status.UP);
			}
			assertThat(failing.getDetails()).containsKey("databaseUnreachableFor");
			await().atMost(Duration.ofSeconds(5)).until(() -> !service.election("default").isDatabaseReachable());
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("role", "follower")
				.containsEntry("error", "database unreachable")
				.containsEntry("leader", "me")
				.containsEntry("heartbeatFailure", "unreachable");
			assertThat((Duration) health.getDetails().get("databaseUnreachableFor")).isPositive();
			assertThat((String) health.getDetails().get("heartbeatFailureCause"))
				.contains("database unreachable (simulated)");
		});
	}

	@Test
	void downWithWhatFailedWhenTheDatabaseRefusesTheHeartbeat() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			HealthIndicator indicator = indicator(context.getBean(ElectionsHealthContributor.class), "default");
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			// The tables of another version, or dropped by hand: the database answers
			// every refresh with an error.
			jdbc.execute("ALTER TABLE leader_election_lease_nodes RENAME TO leader_election_lease_nodes_away");
			try {
				await().atMost(Duration.ofSeconds(5))
					.until(() -> service.election("default").heartbeatFailure().isPresent());
				Health failing = indicator.health();
				assertThat(failing.getDetails()).containsEntry("heartbeatFailure", "schema")
					.containsKey("databaseUnreachableFor");
				assertThat((String) failing.getDetails().get("heartbeatFailureCause"))
					.containsIgnoringCase("leader_election_lease_nodes");
				// DOWN after lease - guard (800ms), with what failed rather than
				// "unreachable".
				await().atMost(Duration.ofSeconds(5)).until(() -> indicator.health().getStatus() == Status.DOWN);
				assertThat(indicator.health().getDetails())
					.containsEntry("error", "heartbeat failing (missing table or column, or bad SQL)")
					.containsEntry("heartbeatFailure", "schema")
					.containsEntry("role", "follower");
			}
			finally {
				jdbc.execute("ALTER TABLE leader_election_lease_nodes_away RENAME TO leader_election_lease_nodes");
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> indicator.health().getStatus() == Status.UP);
			assertThat(indicator.health().getDetails()).doesNotContainKeys("heartbeatFailure", "heartbeatFailureCause",
					"databaseUnreachableFor");
		});
	}

	@Test
	void downWhenEveryRoundFailsAChangeForLeaseMinusGuardThoughTheDatabaseAnswers() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(PartitionAutoConfiguration.class))
			.withPropertyValues("leader-election.partitions.orders.count=2")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
				CompositeHealthContributor contributor = context.getBean(ElectionsHealthContributor.class);
				HealthIndicator indicator = indicator(contributor, "default");
				// A lease that no round can take over: the refresh and the read succeed,
				// the take-over fails every round.
				BlockedTakeOvers.block(context.getBean(DataSource.class));
				service.election("blocked");
				await().atMost(Duration.ofSeconds(5))
					.until(() -> service.election("default").heartbeatFailure().isPresent());
				assertThat(indicator.health().getDetails()).containsEntry("heartbeatFailure", "constraint_violated");
				await().atMost(Duration.ofSeconds(5)).until(() -> indicator.health().getStatus() == Status.DOWN);
				assertThat(service.election("default").isDatabaseReachable()).isTrue();
				assertThat(service.election("default").isLeader()).as("the refresh renews the lease").isTrue();
				Health health = indicator.health();
				assertThat(health.getDetails()).containsEntry("error", "heartbeat failing (constraint violated)")
					.containsEntry("role", "leader");
				assertThat((String) health.getDetails().get("heartbeatFailureCause"))
					.containsIgnoringCase("no_blocked");
				Health group = indicator(contributor, "partitions-orders").health();
				assertThat(group.getStatus()).isEqualTo(Status.DOWN);
				assertThat(group.getDetails()).containsEntry("error", "heartbeat failing (constraint violated)")
					.containsEntry("heartbeatFailure", "constraint_violated");
				service.leave("blocked");
				await().atMost(Duration.ofSeconds(5)).until(() -> indicator.health().getStatus() == Status.UP);
			});
	}

	@Test
	void answersAtOnceWithTheLastSeenLeaseWhileTheDatabaseHangs() {
		this.contextRunner.withUserConfiguration(FaultyDatabaseConfiguration.class)
			.withPropertyValues("leader-election.lease-duration=3s", "leader-election.renew-interval=500ms")
			.run((context) -> {
				FaultyDatabaseConfiguration fault = context.getBean(FaultyDatabaseConfiguration.class);
				try {
					ElectionService service = context.getBean(ElectionService.class);
					await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
					HealthIndicator indicator = indicator(context.getBean(ElectionsHealthContributor.class), "default");
					fault.start(FaultyDatabaseConfiguration.Fault.HANG);
					Health health = assertTimeoutPreemptively(Duration.ofMillis(100), () -> indicator.health());
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat(health.getDetails()).containsEntry("role", "leader").containsEntry("leader", "me");
					assertThat((Duration) health.getDetails().get("leaseAge")).isLessThan(Duration.ofSeconds(3));
					// The heartbeat is stuck in a statement for longer than lease - guard
					// (2.4s).
					await().atMost(Duration.ofSeconds(6)).until(() -> indicator.health().getStatus() == Status.DOWN);
					health = assertTimeoutPreemptively(Duration.ofMillis(100), () -> indicator.health());
					assertThat(health.getDetails()).containsEntry("role", "follower")
						.containsEntry("error", "database unreachable");
					assertThat((Duration) health.getDetails().get("leaseAge")).isGreaterThan(Duration.ofSeconds(2));
					// The lease last seen runs out 3s after it was read: nobody leads, as
					// far as this node can tell.
					await().atMost(Duration.ofSeconds(3))
						.until(() -> "none".equals(indicator.health().getDetails().get("leader")));
				}
				finally {
					fault.restore();
				}
			});
	}

	@Test
	void downWhileAnotherInstanceUsesTheNodeId() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			// Another running instance with node id "me" claims the node's row.
			new JdbcTemplate(context.getBean(DataSource.class))
				.update("UPDATE leader_election_lease_nodes SET instance_id = 'another-instance' WHERE node_id = 'me'");
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isNodeIdInUseElsewhere());
			Health health = indicator(context.getBean(ElectionsHealthContributor.class), "default").health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("role", "follower")
				.containsEntry("error", "node id 'me' is in use by another running instance");
		});
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner.withPropertyValues("management.health.leader.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ElectionsHealthContributor.class));
	}

	@Test
	void backsOffWithoutElectionService() {
		this.contextRunner.withPropertyValues("leader-election.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ElectionsHealthContributor.class));
	}

	@Test
	void locksIndicatorNotesARunPastItsAtMostForAndStaysUp() throws Exception {
		this.contextRunner.run((context) -> {
			HealthIndicator indicator = context.getBean("locksHealthIndicator", HealthIndicator.class);
			ClusterLocks locks = context.getBean(ClusterLocks.class);
			assertThat(indicator.health().getDetails()).isEmpty();
			List<Health> seen = new ArrayList<>();
			locks.runLocked("report", Duration.ofMillis(300), Duration.ZERO, true, (lock) -> {
				seen.add(indicator.health());
				await().atMost(Duration.ofSeconds(5)).until(lock::isPastAtMostFor);
				seen.add(indicator.health());
			});
			assertThat(seen.get(0).getDetails()).as("within atMostFor").isEmpty();
			Health late = seen.get(1);
			assertThat(late.getStatus()).isEqualTo(Status.UP);
			assertThat((List<?>) late.getDetails().get("runsPastAtMostFor")).singleElement()
				.asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsEntry("lock", "report")
				.containsKeys("term", "startedAt", "runningFor");
			assertThat(indicator.health().getDetails()).as("after the run").isEmpty();
		});
	}

	@Test
	void locksIndicatorBacksOffWhenDisabled() {
		this.contextRunner.withPropertyValues("management.health.locks.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(ClusterLocksHealthIndicator.class);
			assertThat(context).hasSingleBean(ElectionsHealthContributor.class);
		});
	}

	private static HealthIndicator indicator(CompositeHealthContributor contributor, String election) {
		return (HealthIndicator) contributor.getContributor(election);
	}

}
