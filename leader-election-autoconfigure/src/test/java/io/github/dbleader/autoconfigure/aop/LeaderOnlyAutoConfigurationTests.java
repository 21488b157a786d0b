package io.github.dbleader.autoconfigure.aop;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.metrics.LeaderElectionMetricsAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyAdvisor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.h2.Driver;
import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderOnlyAutoConfiguration} and the {@link LeaderOnly @LeaderOnly}
 * advice, on an embedded database. "Follower" here is a node whose election service was
 * halted after it led: it does not lead and sends no statement, so every database access
 * during a call comes from the call itself.
 */
class LeaderOnlyAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class, MetricsAutoConfiguration.class,
				LeaderElectionMetricsAutoConfiguration.class))
		.withUserConfiguration(DatabaseConfiguration.class, Jobs.class, LeaderFirstTransactionalJob.class,
				TransactionalFirstJob.class, ReportingJob.class, InterfaceJobs.class)
		.withPropertyValues("leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
				"leader-election.elections=default,reports");

	@Test
	void advisorIsInfrastructureAndOrderedBeforeTransactions() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LeaderOnlyAdvisor.class);
			assertThat(context.getBeanFactory().getBeanDefinition("leaderOnlyAdvisor").getRole())
				.isEqualTo(org.springframework.beans.factory.config.BeanDefinition.ROLE_INFRASTRUCTURE);
			List<Class<?>> advisors = Arrays
				.stream(((Advised) context.getBean(LeaderFirstTransactionalJob.class)).getAdvisors())
				.<Class<?>>map(Advisor::getClass)
				.toList();
			assertThat(advisors).containsSubsequence(LeaderOnlyAdvisor.class,
					BeanFactoryTransactionAttributeSourceAdvisor.class);
		});
	}

	@Test
	void runsOnTheLeader() {
		this.contextRunner.run((context) -> {
			awaitLeadership(context, "default");
			Jobs jobs = context.getBean(Jobs.class);
			jobs.run();
			assertThat(jobs.runs()).isEqualTo(1);
			assertThat(jobs.text()).isEqualTo("ran");
			assertThat(jobs.optional()).contains("ran");
			assertThat(jobs.number()).isEqualTo(42);
			assertThat(jobs.flag()).isTrue();
		});
	}

	@Test
	void skipsOnAFollowerWithoutDatabaseAccessAndCountsTheSkip() {
		this.contextRunner.run((context) -> {
			becomeFollower(context);
			CountingDataSource dataSource = context.getBean(CountingDataSource.class);
			int connections = dataSource.connections.get();
			Jobs jobs = context.getBean(Jobs.class);
			jobs.run();
			assertThat(jobs.runs()).isEqualTo(0);
			assertThat(dataSource.connections).hasValue(connections);
			assertThat(skipped(context, "default")).isEqualTo(1);
		});
	}

	@Test
	void skippedCallsReturnNullEmptyOptionalOrZero() {
		this.contextRunner.run((context) -> {
			becomeFollower(context);
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.text()).isNull();
			assertThat(jobs.optional()).isEmpty();
			assertThat(jobs.number()).isZero();
			assertThat(jobs.flag()).isFalse();
			assertThat(jobs.big()).isZero();
			assertThat(jobs.ratio()).isZero();
			assertThat(jobs.letter()).isEqualTo('\0');
			assertThat(jobs.anything()).isNull();
			assertThat(jobs.unguarded()).isEqualTo("ran");
			assertThat(jobs.toString()).isEqualTo("jobs");
			assertThat(skipped(context, "default")).isEqualTo(8);
		});
	}

	@Test
	void leaderOfTransactionalClassRunsInsideATransaction() {
		this.contextRunner.run((context) -> {
			awaitLeadership(context, "default");
			assertThat(context.getBean(LeaderFirstTransactionalJob.class).run()).isTrue();
			assertThat(context.getBean(TransactionalFirstJob.class).run()).isTrue();
		});
	}

	@Test
	void followerSkipsTransactionalClassBeforeAnyTransactionOpensWhateverTheAnnotationOrder() {
		this.contextRunner.run((context) -> {
			becomeFollower(context);
			CountingDataSource dataSource = context.getBean(CountingDataSource.class);
			int connections = dataSource.connections.get();
			LeaderFirstTransactionalJob leaderFirst = context.getBean(LeaderFirstTransactionalJob.class);
			TransactionalFirstJob transactionalFirst = context.getBean(TransactionalFirstJob.class);
			assertThat(leaderFirst.run()).isFalse();
			assertThat(transactionalFirst.run()).isFalse();
			assertThat(context.getBean(RunCounter.class).runs()).isZero();
			assertThat(dataSource.connections).hasValue(connections);
		});
	}

	@Test
	void electionIsNamedByTheAnnotation() {
		this.contextRunner.run((context) -> {
			awaitLeadership(context, "reports");
			ReportingJob job = context.getBean(ReportingJob.class);
			job.report();
			assertThat(job.runs()).isEqualTo(1);
			context.getBean(ElectionService.class).election("reports").release();
			job.report();
			assertThat(job.runs()).isEqualTo(1);
			assertThat(skipped(context, "reports")).isEqualTo(1);
			assertThat(skipped(context, "default")).isZero();
		});
	}

	@Test
	void classLevelAnnotationGuardsCallsThroughAnInterface() {
		this.contextRunner.run((context) -> {
			awaitLeadership(context, "default");
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(AopUtils.isAopProxy(greeter)).isTrue();
			assertThat(greeter.greet()).isEqualTo("hello");
			becomeFollower(context);
			assertThat(greeter.greet()).isNull();
		});
	}

	@Test
	void scheduledMethodOfProxiedBeanRunsOnlyOnTheLeader() {
		this.contextRunner.withUserConfiguration(SchedulingConfiguration.class).run((context) -> {
			ScheduledJob job = context.getBean(ScheduledJob.class);
			assertThat(AopUtils.isCglibProxy(job)).isTrue();
			awaitLeadership(context, "default");
			await().atMost(Duration.ofSeconds(5)).until(() -> job.runs() >= 3);
			becomeFollower(context);
			int runs = job.runs();
			double skipped = skipped(context, "default");
			await().atMost(Duration.ofSeconds(5)).until(() -> skipped(context, "default") >= skipped + 3);
			assertThat(job.runs()).isEqualTo(runs);
		});
	}

	@Test
	void joinsTheElectionsThatAnnotationsNameAtStartUpSoTheFirstCallRuns() {
		this.contextRunner.withPropertyValues("leader-election.elections=default")
			.withUserConfiguration(NightlyJobConfiguration.class)
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				// Named by a method's annotation and by a class's, listed nowhere else.
				assertThat(service.findElection("reports")).isNotNull();
				assertThat(service.findElection("nightly")).isNotNull();
				awaitLeadership(context, "nightly");
				NightlyJob job = context.getBean(NightlyJob.class);
				job.run();
				assertThat(job.runs()).isEqualTo(1);
				assertThat(skipped(context, "nightly")).isZero();
			});
	}

	@Test
	void invalidElectionNameInAnAnnotationFailsStartUp() {
		this.contextRunner.withUserConfiguration(BlankElectionJobConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("@LeaderOnly of bean 'blankElectionJob' names an invalid election: "
						+ "election name must not be blank"));
	}

	@Test
	void noAdvisorWithoutElectionService() {
		this.contextRunner.withPropertyValues("leader-election.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LeaderOnlyAdvisor.class);
			Jobs jobs = context.getBean(Jobs.class);
			jobs.run();
			assertThat(jobs.runs()).isEqualTo(1);
		});
	}

	private static void awaitLeadership(AssertableApplicationContext context, String election) {
		ElectionService service = context.getBean(ElectionService.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> service.election(election).isLeader());
	}

	private static void becomeFollower(AssertableApplicationContext context) {
		awaitLeadership(context, "default");
		ElectionService service = context.getBean(ElectionService.class);
		service.halt();
		assertThat(service.election("default").isLeader()).isFalse();
	}

	private static double skipped(AssertableApplicationContext context, String election) {
		var counter = context.getBean(MeterRegistry.class)
			.find("leader.election.leader.only.skipped")
			.tag("election", election)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	@Configuration(proxyBeanMethods = false)
	static class DatabaseConfiguration {

		@Bean
		CountingDataSource dataSource() {
			return new CountingDataSource(new SimpleDriverDataSource(new Driver(),
					"jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", ""));
		}

		@Bean
		RunCounter runCounter() {
			return new RunCounter();
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingConfiguration {

		@Bean
		ScheduledJob scheduledJob() {
			return new ScheduledJob();
		}

	}

	/** Counts runs outside the proxied beans, whose every public method is guarded. */
	static class RunCounter {

		private final AtomicInteger runs = new AtomicInteger();

		void increment() {
			this.runs.incrementAndGet();
		}

		int runs() {
			return this.runs.get();
		}

	}

	static class CountingDataSource extends DelegatingDataSource {

		final AtomicInteger connections = new AtomicInteger();

		CountingDataSource(DataSource target) {
			super(target);
		}

		@Override
		public Connection getConnection() throws SQLException {
			this.connections.incrementAndGet();
			return super.getConnection();
		}

	}

	static class Jobs {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@LeaderOnly
		public void run() {
			this.runs.incrementAndGet();
		}

		@LeaderOnly
		public String text() {
			return "ran";
		}

		@LeaderOnly
		public Optional<String> optional() {
			return Optional.of("ran");
		}

		@LeaderOnly
		public int number() {
			return 42;
		}

		@LeaderOnly
		public boolean flag() {
			return true;
		}

		@LeaderOnly
		public long big() {
			return 7L;
		}

		@LeaderOnly
		public double ratio() {
			return 0.5;
		}

		@LeaderOnly
		public char letter() {
			return 'x';
		}

		@LeaderOnly
		public Object anything() {
			return "ran";
		}

		public String unguarded() {
			return "ran";
		}

		@Override
		public String toString() {
			return "jobs";
		}

	}

	@LeaderOnly
	@Transactional
	static class LeaderFirstTransactionalJob {

		private final RunCounter counter;

		LeaderFirstTransactionalJob(RunCounter counter) {
			this.counter = counter;
		}

		public boolean run() {
			this.counter.increment();
			return TransactionSynchronizationManager.isActualTransactionActive();
		}

	}

	@Transactional
	@LeaderOnly
	static class TransactionalFirstJob {

		private final RunCounter counter;

		TransactionalFirstJob(RunCounter counter) {
			this.counter = counter;
		}

		public boolean run() {
			this.counter.increment();
			return TransactionSynchronizationManager.isActualTransactionActive();
		}

	}

	static class ReportingJob {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@LeaderOnly(election = "reports")
		public void report() {
			this.runs.incrementAndGet();
		}

	}

	interface Greeter {

		String greet();

	}

	@Configuration(proxyBeanMethods = false)
	static class InterfaceJobs {

		@Bean
		Greeter greeter() {
			return new LeaderGreeter();
		}

	}

	@LeaderOnly
	static class LeaderGreeter implements Greeter {

		@Override
		public String greet() {
			return "hello";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NightlyJobConfiguration {

		@Bean
		NightlyJob nightlyJob() {
			return new NightlyJob();
		}

	}

	@LeaderOnly(election = "nightly")
	static class NightlyJob {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		public void run() {
			this.runs.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BlankElectionJobConfiguration {

		@Bean
		BlankElectionJob blankElectionJob() {
			return new BlankElectionJob();
		}

	}

	static class BlankElectionJob {

		@LeaderOnly(election = " ")
		public void run() {
		}

	}

	static class ScheduledJob {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@Scheduled(fixedDelay = 20)
		@LeaderOnly
		public void tick() {
			this.runs.incrementAndGet();
		}

	}

}
