package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.event.LeadershipRevokedEvent;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the readiness part of {@link LeaderElectionAutoConfiguration}: with Spring
 * Boot's application availability, the node campaigns only while readiness accepts
 * traffic.
 */
class ReadinessCampaignTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class))
		.withUserConfiguration(RoundsConfiguration.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=1s", "leader-election.renew-interval=100ms");

	private final ApplicationContextRunner withAvailability = this.contextRunner
		.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class));

	@Test
	void withoutApplicationAvailabilityTheNodeCampaignsFromTheStart() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(ReadinessCampaign.class);
			await().atMost(TIMEOUT).until(election(context)::isLeader);
		});
	}

	@Test
	void followReadinessOffIgnoresReadiness() {
		this.withAvailability.withPropertyValues("leader-election.follow-readiness=false").run((context) -> {
			assertThat(context).doesNotHaveBean(ReadinessCampaign.class);
			await().atMost(TIMEOUT).until(election(context)::isLeader);
			AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);
			assertThat(context.getBean(ElectionService.class).isCampaigning()).isTrue();
			assertThat(election(context).isLeader()).isTrue();
		});
	}

	@Test
	void theNodeCampaignsOnlyWhileReadinessAcceptsTraffic() {
		this.withAvailability.run((context) -> {
			assertThat(context).hasSingleBean(ReadinessCampaign.class);
			ElectionService service = context.getBean(ElectionService.class);
			Election election = election(context);
			// Not ready yet (the context runner never reports readiness): rounds run,
			// nobody leads.
			awaitRounds(context, 3);
			assertThat(service.isCampaigning()).isFalse();
			assertThat(election.isLeader()).isFalse();
			assertThat(election.leaderInfo().leaderId()).isNull();
			assertThat(election.candidates()).hasSize(1);

			AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
			await().atMost(TIMEOUT).until(election::isLeader);

			AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);
			assertThat(election.isLeader()).isFalse();
			await().atMost(TIMEOUT).until(() -> context.getBean(RevokedEvents.class).reasons.get() == 1);
			await().atMost(TIMEOUT).until(() -> election.leaderInfo().leaderId() == null);
			// Standing down: no new campaign, also after the lease it gave up would be
			// its own again.
			awaitRounds(context, 15);
			assertThat(election.isLeader()).isFalse();
			assertThat(election.leaderInfo().leaderId()).isNull();

			AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
			await().atMost(TIMEOUT).until(election::isLeader);
		});
	}

	private static Election election(AssertableApplicationContext context) {
		return context.getBean(ElectionService.class).election("default");
	}

	/** Wait for this many more heartbeat rounds (100 ms apart). */
	private static void awaitRounds(AssertableApplicationContext context, int rounds) {
		AtomicInteger count = context.getBean(RoundsConfiguration.class).rounds;
		int until = count.get() + rounds;
		await().atMost(TIMEOUT).until(() -> count.get() >= until);
	}

	@Configuration(proxyBeanMethods = false)
	static class RoundsConfiguration {

		final AtomicInteger rounds = new AtomicInteger();

		@Bean
		LeadershipListener roundCounter() {
			return new LeadershipListener() {

				@Override
				public void heartbeat(String nodeId, int elections, boolean succeeded, Duration duration) {
					RoundsConfiguration.this.rounds.incrementAndGet();
				}

			};
		}

		@Bean
		RevokedEvents revokedEvents() {
			return new RevokedEvents();
		}

	}

	/** Counts the revocations because the node stood down. */
	static class RevokedEvents implements ApplicationListener<LeadershipRevokedEvent> {

		final AtomicInteger reasons = new AtomicInteger();

		@Override
		public void onApplicationEvent(LeadershipRevokedEvent event) {
			if (event.getReason() == RevocationReason.STOOD_DOWN) {
				this.reasons.incrementAndGet();
			}
		}

	}

}
