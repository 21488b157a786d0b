package io.github.dbleader.shedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockRun;
import io.github.dbleader.shedlock.ClusterLockProvider;
import io.github.dbleader.shedlock.SchedulerLockContext;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterLockProviderAutoConfiguration}, and for {@code @SchedulerLock}
 * methods under its provider, on an embedded database. A second {@link ClusterLocks} on
 * the same database plays another node.
 */
class ClusterLockProviderAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				ClusterLockProviderAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
				"leader-election.node-id=here");

	@Test
	void providesALockProviderOverTheClusterLocks() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class);
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(ClusterLockProvider.class);
			assertThat(context.getBean(ClusterLockProvider.class).getClusterLocks())
				.isSameAs(context.getBean(ClusterLocks.class));
		});
	}

	@Test
	void backsOffWhenTheApplicationHasALockProvider() {
		this.contextRunner.withUserConfiguration(OwnLockProviderConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class).doesNotHaveBean(ClusterLockProvider.class);
			assertThat(context.getBean(LockProvider.class)).isSameAs(OwnLockProviderConfiguration.PROVIDER);
		});
	}

	@Test
	void backsOffWithoutShedLock() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).hasSingleBean(ClusterLocks.class)
				.doesNotHaveBean(ClusterLockProvider.class));
	}

	@Test
	void backsOffWithoutClusterLocks() {
		this.contextRunner.withPropertyValues("leader-election.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterLocks.class)
				.doesNotHaveBean(ClusterLockProvider.class));
	}

	@Test
	void aSchedulerLockMethodRunsUnderTheClusterLockWithItsTermAndFencedWorkAndIsRecorded() {
		this.contextRunner.withUserConfiguration(JobsConfiguration.class).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			ClusterLocks locks = context.getBean(ClusterLocks.class);
			context.getBean(JdbcTemplate.class).execute("CREATE TABLE report_runs (term BIGINT PRIMARY KEY)");
			jobs.report();
			jobs.report();
			assertThat(jobs.terms()).hasSize(2);
			assertThat(jobs.terms().get(1)).as("a new term per run").isGreaterThan(jobs.terms().get(0));
			assertThat(jobs.fencedTerms()).isEqualTo(jobs.terms());
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForList("SELECT term FROM report_runs ORDER BY term", Long.class)).isEqualTo(jobs.terms());
			assertThat(locks.recentRuns("report")).hasSize(2)
				.allSatisfy((run) -> assertThat(run.outcome()).isEqualTo(LockRun.Outcome.ENDED));
			assertThat(SchedulerLockContext.currentLock()).as("after the run").isEmpty();
		});
	}

	@Test
	void aSchedulerLockMethodIsSkippedWhileAnotherNodeHoldsTheLock() {
		this.contextRunner.withUserConfiguration(JobsConfiguration.class).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			ClusterLocks elsewhere = new ClusterLocks(context.getBean(LockRepository.class), "elsewhere");
			context.getBean(JdbcTemplate.class).execute("CREATE TABLE report_runs (term BIGINT PRIMARY KEY)");
			HeldLock held = elsewhere.tryLock("report", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
			jobs.report();
			assertThat(jobs.terms()).as("skipped").isEmpty();
			held.release();
			jobs.report();
			assertThat(jobs.terms()).singleElement().satisfies((term) -> assertThat(term).isGreaterThan(held.term()));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnLockProviderConfiguration {

		static final LockProvider PROVIDER = (LockConfiguration configuration) -> Optional.<SimpleLock>empty();

		@Bean
		LockProvider ownLockProvider() {
			return PROVIDER;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "30s")
	static class JobsConfiguration {

		@Bean
		Jobs jobs(JdbcTemplate jdbc) {
			return new Jobs(jdbc);
		}

	}

	static class Jobs {

		private final JdbcTemplate jdbc;

		private final List<Long> terms = new ArrayList<>();

		private final List<Long> fencedTerms = new ArrayList<>();

		Jobs(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		// Read through the proxy: a class-based proxy has fields of its own.
		public List<Long> terms() {
			return this.terms;
		}

		public List<Long> fencedTerms() {
			return this.fencedTerms;
		}

		@SchedulerLock(name = "report")
		public void report() {
			this.terms.add(SchedulerLockContext.currentTerm());
			this.fencedTerms.add(SchedulerLockContext.runFenced((term) -> {
				this.jdbc.update("INSERT INTO report_runs (term) VALUES (?)", term);
				return term;
			}));
		}

	}

}
