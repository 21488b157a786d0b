package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications on the same MySQL-protocol database ({@link TestDatabase#MYSQL}:
 * MariaDB in CI), each with a {@code @Scheduled @LeaderOnly} job: the job runs only in
 * the leader's context, and moves to the other context after a forced hand-over. The
 * schema is created by the auto-configured initializer
 * ({@code initialize-schema=always}).
 */
class LeaderOnlySchedulingIntegrationTests {

	private static final TestDatabase DATABASE = TestDatabase.MYSQL;

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	@AfterEach
	void close() {
		if (this.second != null) {
			this.second.close();
		}
		if (this.first != null) {
			this.first.close();
		}
	}

	@Test
	void jobRunsOnlyOnTheLeaderAndMovesWithLeadership() {
		try (HikariDataSource dataSource = DATABASE.dataSource(1)) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("DROP TABLE IF EXISTS boot_sched_lease");
			jdbc.execute("DROP TABLE IF EXISTS boot_sched_candidate");
			jdbc.execute("DROP TABLE IF EXISTS boot_sched_lease_fence");
		}
		this.first = start("sched-a");
		Election firstElection = election(this.first);
		await().atMost(Duration.ofSeconds(10)).until(firstElection::isLeader);
		this.second = start("sched-b");
		Election secondElection = election(this.second);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> firstElection.candidates().stream().anyMatch((c) -> c.nodeId().equals("sched-b")));
		Job firstJob = this.first.getBean(Job.class);
		Job secondJob = this.second.getBean(Job.class);
		await().atMost(Duration.ofSeconds(5)).until(() -> firstJob.runs() >= 5);
		assertThat(secondElection.isLeader()).isFalse();
		assertThat(secondJob.runs()).isZero();

		firstElection.forceLeader("sched-b");
		Handovers.awaitLeader(secondElection, firstElection, Duration.ofSeconds(5));
		await().atMost(Duration.ofSeconds(5)).until(() -> secondJob.runs() >= 1);
		int firstRuns = firstJob.runs();
		await().atMost(Duration.ofSeconds(5)).until(() -> secondJob.runs() >= 6);
		assertThat(firstJob.runs()).isEqualTo(firstRuns);
	}

	private static Election election(ConfigurableApplicationContext context) {
		return context.getBean(ElectionService.class).election("default");
	}

	private static ConfigurableApplicationContext start(String nodeId) {
		return TestApplication.start(DATABASE, false, new Class<?>[] { JobConfiguration.class },
				"leader-election.node-id=" + nodeId, "leader-election.lease-duration=6s",
				"leader-election.renew-interval=1s", "leader-election.jdbc.table-name=boot_sched_lease",
				"leader-election.jdbc.candidate-table-name=boot_sched_candidate",
				"leader-election.jdbc.initialize-schema=always");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class JobConfiguration {

		@Bean
		Job job() {
			return new Job();
		}

	}

	static class Job {

		private final AtomicInteger runs = new AtomicInteger();

		@Scheduled(fixedDelay = 50)
		@LeaderOnly
		public void run() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

}
