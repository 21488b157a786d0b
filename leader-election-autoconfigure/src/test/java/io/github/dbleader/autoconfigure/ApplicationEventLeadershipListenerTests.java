package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.election.event.ApplicationEventLeadershipListener;
import io.github.dbleader.election.event.LeaderChangedEvent;
import io.github.dbleader.election.event.LeadershipEvent;
import io.github.dbleader.election.event.LeadershipGrantedEvent;
import io.github.dbleader.election.event.LeadershipRevokedEvent;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.RevocationReason;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ApplicationEventLeadershipListener} as the auto-configuration wires
 * it.
 */
class ApplicationEventLeadershipListenerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataSourceAutoConfiguration.class, LeaderElectionAutoConfiguration.class))
		.withBean(Recorder.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
				"leader-election.node-id=me");

	@Test
	void publishesGrantedChangedAndRevokedEventsOnTheNotificationThread() {
		this.contextRunner.run((context) -> {
			Recorder recorder = context.getBean(Recorder.class);
			ElectionService service = context.getBean(ElectionService.class);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> recorder.events.stream().anyMatch(LeadershipGrantedEvent.class::isInstance));
			LeadershipGrantedEvent granted = recorder.first(LeadershipGrantedEvent.class);
			assertThat(granted.getElection()).isEqualTo("default");
			assertThat(granted.getNodeId()).isEqualTo("me");
			assertThat(granted.getTerm()).isEqualTo(service.election("default").term());
			assertThat(recorder.first(LeaderChangedEvent.class).getNewLeader()).isEqualTo("me");
			service.election("default").release();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> recorder.events.stream().anyMatch(LeadershipRevokedEvent.class::isInstance));
			LeadershipRevokedEvent revoked = recorder.first(LeadershipRevokedEvent.class);
			assertThat(revoked.getReason()).isEqualTo(RevocationReason.RELEASED);
			assertThat(revoked.getTerm()).isEqualTo(granted.getTerm());
			// Never the heartbeat thread: a slow listener must not delay renewals (I9).
			assertThat(recorder.threads).allMatch((name) -> name.startsWith("leader-election-events"));
		});
	}

	static class Recorder {

		final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeadershipEvent event) {
			this.events.add(event);
			this.threads.add(Thread.currentThread().getName());
		}

		<T extends LeadershipEvent> T first(Class<T> type) {
			return this.events.stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
		}

	}

}
