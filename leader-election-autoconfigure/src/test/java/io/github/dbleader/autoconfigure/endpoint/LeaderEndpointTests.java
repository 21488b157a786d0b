package io.github.dbleader.autoconfigure.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint.ElectionDescriptor;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint.LeaderDescriptor;
import io.github.dbleader.autoconfigure.partition.PartitionAutoConfiguration;
import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.partition.PartitionGroup;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderEndpoint}'s read operations, called directly on an embedded
 * database.
 */
class LeaderEndpointTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				LeaderElectionAutoConfiguration.class, LeaderEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"management.endpoints.web.exposure.include=leader", "leader-election.lease-duration=1s",
				"leader-election.renew-interval=200ms", "leader-election.node-id=me");

	@Test
	void showsThatAnotherInstanceUsesThisNodesId() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			LeaderEndpoint endpoint = context.getBean(LeaderEndpoint.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			ElectionDescriptor leading = endpoint.election("default");
			assertThat(leading.thisNodeLeads()).isTrue();
			assertThat(leading.nodeIdInUseElsewhere()).isFalse();
			// Another running instance with node id "me" claims the node's row.
			new JdbcTemplate(context.getBean(DataSource.class))
				.update("UPDATE leader_election_lease_nodes SET instance_id = 'another-instance' WHERE node_id = 'me'");
			await().atMost(Duration.ofSeconds(5)).until(() -> endpoint.election("default").nodeIdInUseElsewhere());
			assertThat(endpoint.leader().elections().get("default").nodeIdInUseElsewhere()).isTrue();
			assertThat(endpoint.election("default").thisNodeLeads()).isFalse();
		});
	}

	@Test
	void listsElectionsButNotThoseOfPartitionsWhichRemainReadableOneByOne() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(PartitionAutoConfiguration.class))
			.withPropertyValues("leader-election.partitions.orders.count=3")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				LeaderEndpoint endpoint = context.getBean(LeaderEndpoint.class);
				String partition = PartitionGroup.electionName("orders", 2);
				await().atMost(Duration.ofSeconds(5)).until(() -> service.findElection(partition) != null);
				assertThat(endpoint.leader().elections()).containsOnlyKeys("default");
				await().atMost(Duration.ofSeconds(20)).until(() -> endpoint.election(partition).thisNodeLeads());
			});
	}

	@Test
	void listsTheFirstElectionsInNameOrderAndCountsThemAll() {
		this.contextRunner.run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			LeaderEndpoint endpoint = context.getBean(LeaderEndpoint.class);
			List<String> joined = IntStream.range(0, LeaderEndpoint.LISTED_ELECTIONS + 5)
				.mapToObj((i) -> String.format("e%03d", LeaderEndpoint.LISTED_ELECTIONS + 5 - i))
				.toList();
			joined.forEach(service::election);
			List<String> all = Stream.concat(Stream.of("default"), joined.stream()).sorted().toList();
			LeaderDescriptor listing = endpoint.leader();
			assertThat(listing.electionCount()).isEqualTo(all.size());
			assertThat(listing.elections().keySet())
				.containsExactlyElementsOf(all.subList(0, LeaderEndpoint.LISTED_ELECTIONS));
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.forceLeader("not-run-here", null))
				.satisfies((ex) -> assertThat(ex.getReason()).contains("[default, e001, e002")
					.endsWith(", and " + (all.size() - 20) + " more]"));
		});
	}

	@Test
	void aFailureOfTheHandOverIsNotTakenForALeaseNotCreatedYet() {
		this.contextRunner.withUserConfiguration(FailingHandOverConfiguration.class).run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			LeaderEndpoint endpoint = context.getBean(LeaderEndpoint.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
			// Not a request to refuse with "no lease yet": the failure of the write
			// itself.
			assertThatIllegalStateException().isThrownBy(() -> endpoint.forceLeader("default", "other"))
				.isNotInstanceOf(InvalidEndpointRequestException.class)
				.withMessage("Connection pool is closed");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class FailingHandOverConfiguration {

		@Bean
		static BeanPostProcessor failingHandOver() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (!(bean instanceof LeaseRepository repository)) {
						return bean;
					}
					return Proxy.newProxyInstance(LeaseRepository.class.getClassLoader(),
							new Class<?>[] { LeaseRepository.class }, (proxy, method, args) -> {
								if (method.getName().equals("requestHandover")) {
									throw new IllegalStateException("Connection pool is closed");
								}
								if (method.getName().equals("liveCandidates")) {
									// Another live candidate to hand over to.
									return List.of(new Candidate("other", Instant.now(), Instant.now()));
								}
								try {
									return method.invoke(repository, args);
								}
								catch (InvocationTargetException ex) {
									throw ex.getCause();
								}
							});
				}

			};
		}

	}

}
