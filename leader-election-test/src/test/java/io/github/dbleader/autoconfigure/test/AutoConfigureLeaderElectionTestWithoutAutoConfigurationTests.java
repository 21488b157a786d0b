package io.github.dbleader.autoconfigure.test;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.dbleader.election.aop.LeaderOnly;
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

/**
 * As in a test slice: no auto-configuration but the DataSource's, and the annotation brings
 * the election's own.
 */
@SpringBootTest(classes = AutoConfigureLeaderElectionTestWithoutAutoConfigurationTests.Config.class,
		properties = "spring.datasource.url=jdbc:h2:mem:leader-election-slice;DB_CLOSE_DELAY=-1")
@AutoConfigureLeaderElectionTest
class AutoConfigureLeaderElectionTestWithoutAutoConfigurationTests {

	@Autowired
	LeaderElectionTestControl leaderElection;

	@Autowired
	Job job;

	@Test
	void leaderOnlyFollowsTheRoleTheTestGives() {
		this.job.run();
		this.leaderElection.grant("slice");
		this.job.run();
		this.leaderElection.leaderElsewhere("slice", "node-b");
		this.job.run();

		assertThat(this.job.runs()).isOne();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
			JdbcTemplateAutoConfiguration.class })
	static class Config {

		@Bean
		Job job() {
			return new Job();
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

}
