package io.github.dbleader.autoconfigure.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.scoped.LeaderScopedService;
import io.github.dbleader.election.scoped.LeadershipContext;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * As in a test slice: no auto-configuration but the DataSource's, and the annotation
 * brings the election's own.
 */
@SpringBootTest(classes = AutoConfigureLeaderElectionTestWithoutAutoConfigurationTests.Config.class,
		properties = "spring.datasource.url=jdbc:h2:mem:leader-election-slice;DB_CLOSE_DELAY=-1")
@AutoConfigureLeaderElectionTest
class AutoConfigureLeaderElectionTestWithoutAutoConfigurationTests {

	@Autowired
	LeaderElectionTestControl leaderElection;

	@Autowired
	Job job;

	@Autowired
	SliceService service;

	@Test
	void leaderOnlyFollowsTheRoleTheTestGives() {
		this.job.run();
		this.leaderElection.grant("slice");
		this.job.run();
		this.leaderElection.leaderElsewhere("slice", "node-b");
		this.job.run();

		assertThat(this.job.runs()).isOne();
	}

	@Test
	void leaderScopedServicesFollowTheRoleTheTestGives() {
		this.leaderElection.grant("slice", 4);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.service.running.get() == 4);
		this.leaderElection.noLeader("slice");

		assertThat(this.service.running).hasValue(0);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
			JdbcTemplateAutoConfiguration.class })
	static class Config {

		@Bean
		Job job() {
			return new Job();
		}

		@Bean
		SliceService sliceService() {
			return new SliceService();
		}

	}

	static class Job {

		private final AtomicInteger runs = new AtomicInteger();

		@LeaderOnly("slice")
		public void run() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

	/** Holds the term it runs with, 0 when it does not run. */
	static class SliceService implements LeaderScopedService {

		private final AtomicLong running = new AtomicLong();

		@Override
		public String election() {
			return "slice";
		}

		@Override
		public void start(LeadershipContext context) throws InterruptedException {
			this.running.set(context.term());
			try {
				while (!context.awaitCancellation(Duration.ofSeconds(1))) {
					// Leader work.
				}
			}
			finally {
				this.running.set(0);
			}
		}

	}

}
