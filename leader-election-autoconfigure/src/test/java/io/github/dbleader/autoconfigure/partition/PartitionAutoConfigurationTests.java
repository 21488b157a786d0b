package io.github.dbleader.autoconfigure.partition;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.event.PartitionGainedEvent;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroups;
import io.github.dbleader.election.partition.PartitionPins;
import io.github.dbleader.election.partition.PartitionSettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link PartitionAutoConfiguration} and
 * {@link PartitionsEndpointAutoConfiguration}.
 */
class PartitionAutoConfigurationTests {

	private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				PartitionAutoConfiguration.class, PartitionsEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url, "leader-election.node-id=node-a",
				"leader-election.lease-duration=2s", "leader-election.renew-interval=400ms");

	@Test
	void backsOffWithoutElection() {
		this.contextRunner.withPropertyValues("leader-election.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PartitionGroups.class)
				.doesNotHaveBean(PartitionPins.class)
				.doesNotHaveBean(PartitionGroupsLifecycle.class)
				.doesNotHaveBean(PartitionsEndpoint.class));
	}

	@Test
	void createsAnEmptyRegistryWithoutGroups() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(PartitionGroups.class).hasSingleBean(PartitionGroupsLifecycle.class);
			assertThat(context.getBean(PartitionGroups.class).groups()).isEmpty();
		});
	}

	@Test
	void createsTheConfiguredGroupsWithTheirSettings() {
		this.contextRunner
			.withPropertyValues("leader-election.partitions.orders.count=12",
					"leader-election.partitions.orders.settle-time=3s",
					"leader-election.partitions.orders.max-hand-overs=2", "leader-election.partitions.mails.count=4")
			.run((context) -> {
				PartitionGroups groups = context.getBean(PartitionGroups.class);
				PartitionGroup orders = groups.group("orders");
				assertThat(orders).isNotNull();
				assertThat(orders.count()).isEqualTo(12);
				assertThat(orders.settings()).isEqualTo(new PartitionSettings(Duration.ofSeconds(3), 2));
				assertThat(groups.group("mails").settings()).isEqualTo(PartitionSettings.defaults());
				assertThat(orders.isRunning()).isTrue();
				assertThat(context.getBean(ElectionService.class).elections()).hasSize(1 + 12 + 4);
			});
	}

	@Test
	void invalidGroupFailsAtStartUp() {
		this.contextRunner.withPropertyValues("leader-election.partitions.orders.count=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("must have 1 to"));
	}

	@Test
	void publishesAnEventForEveryPartitionGained() {
		this.contextRunner.withUserConfiguration(RecordingConfiguration.class)
			.withPropertyValues("leader-election.partitions.orders.count=6")
			.run((context) -> {
				List<PartitionGainedEvent> events = context.getBean(RecordingConfiguration.class).gained;
				await().atMost(Duration.ofSeconds(20)).until(() -> events.size() == 6);
				assertThat(events).extracting(PartitionGainedEvent::getPartition)
					.containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
				assertThat(context.getBean(PartitionGroups.class).group("orders").ownedPartitions()).hasSize(6);
			});
	}

	@Test
	void endpointIsAvailableWhenExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(PartitionsEndpoint.class));
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=partitions")
			.run((context) -> assertThat(context).hasSingleBean(PartitionsEndpoint.class)
				.hasBean("partitionsEndpointErrors"));
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=partitions")
			.run((context) -> assertThat(context).hasSingleBean(PartitionsEndpoint.class)
				.hasBean("partitionsEndpointErrors"));
	}

	@Test
	void endpointDescribesTheGroupsFromThisNodesViewAndPinsLiveMembersOnly() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=partitions",
					"leader-election.partitions.orders.count=4")
			.run((context) -> {
				PartitionsEndpoint endpoint = context.getBean(PartitionsEndpoint.class);
				PartitionGroup orders = context.getBean(PartitionGroups.class).group("orders");
				await().atMost(Duration.ofSeconds(20))
					.until(() -> endpoint.group("orders").partitionsPerNode().equals(java.util.Map.of("node-a", 4))
							&& endpoint.group("orders").members().equals(List.of("node-a")));
				PartitionsEndpoint.PartitionsDescriptor all = endpoint.partitions();
				assertThat(all.nodeId()).isEqualTo("node-a");
				assertThat(all.groups()).containsOnlyKeys("orders");
				PartitionsEndpoint.GroupDescriptor group = all.groups().get("orders");
				assertThat(group.count()).isEqualTo(4);
				assertThat(group.members()).containsExactly("node-a");
				assertThat(group.partitions()).extracting(PartitionsEndpoint.PartitionDescriptor::owner)
					.containsOnly("node-a");
				assertThat(group.partitions().get(2).term()).isEqualTo(orders.term(2));
				assertThat(group.pendingMoves()).isEmpty();
				org.assertj.core.api.Assertions
					.assertThatExceptionOfType(io.github.dbleader.autoconfigure.endpoint.UnknownTargetException.class)
					.isThrownBy(() -> endpoint.group("nothing"))
					.withMessage("This node has no partition group 'nothing'; its groups are [orders]");
				org.assertj.core.api.Assertions
					.assertThatExceptionOfType(
							org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.pin("orders", 1, "node-unknown"));
				org.assertj.core.api.Assertions
					.assertThatExceptionOfType(
							org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.pin("orders", 4, "node-a"));
				endpoint.pin("orders", 1, "node-a");
				await().atMost(Duration.ofSeconds(20))
					.until(() -> "node-a".equals(endpoint.group("orders").partitions().get(1).pinnedTo()));
				endpoint.unpin("orders", 1);
				await().atMost(Duration.ofSeconds(20))
					.until(() -> endpoint.group("orders").partitions().get(1).pinnedTo() == null);
			});
	}

	@Test
	void backsOffFromAUserDefinedRegistry() {
		this.contextRunner.withUserConfiguration(UserGroupsConfiguration.class)
			.run((context) -> assertThat(context).getBean(PartitionGroups.class)
				.isSameAs(context.getBean(UserGroupsConfiguration.class).groups));
	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingConfiguration {

		final List<PartitionGainedEvent> gained = new CopyOnWriteArrayList<>();

		@Bean
		ApplicationListener<PartitionGainedEvent> recorder() {
			return this.gained::add;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserGroupsConfiguration {

		final PartitionGroups groups = new PartitionGroups(new InMemoryPins());

		@Bean
		PartitionGroups userGroups() {
			return this.groups;
		}

	}

	static final class InMemoryPins implements PartitionPins {

		@Override
		public java.util.Map<Integer, String> pins(String group) {
			return java.util.Map.of();
		}

		@Override
		public void pin(String group, int partition, String nodeId) {
		}

		@Override
		public boolean unpin(String group, int partition) {
			return false;
		}

	}

}
