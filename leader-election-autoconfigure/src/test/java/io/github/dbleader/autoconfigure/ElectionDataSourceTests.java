package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.autoconfigure.aop.ElectionRequiredException;
import io.github.dbleader.autoconfigure.aop.LeaderOnlyAutoConfiguration;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyAdvisor;
import org.h2.Driver;
import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the choice of the election's {@code DataSource}
 * ({@code leader-election.jdbc.url},
 * {@link LeaderElectionDataSource @LeaderElectionDataSource}, the single or primary one),
 * and for start-up failing rather than running {@code @LeaderOnly} methods on every node
 * when none can be chosen.
 */
class ElectionDataSourceTests {

	private final String ordersUrl = h2Url();

	private final String reportsUrl = h2Url();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(AopAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
						LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
		.withPropertyValues("test.orders-url=" + this.ordersUrl, "test.reports-url=" + this.reportsUrl,
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms");

	@Test
	void twoDataSourcesWithoutPrimaryAndALeaderOnlyBeanFailStartupNamingTheMethodAndTheFixes() {
		this.contextRunner.withUserConfiguration(Orders.class, Reports.class, ReportJob.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().isInstanceOf(ElectionRequiredException.class);
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains("@LeaderOnly method " + ReportJob.class.getName() + "#run",
					"2 DataSource beans [orders, reports]", "none of them @Primary or @LeaderElectionDataSource");
			assertThat(analysis.getAction()).contains("@Primary", "@LeaderElectionDataSource",
					"leader-election.jdbc.url", "leader-election.enabled=false");
		});
	}

	@Test
	void primaryDataSourceIsChosenAndLeaderOnlyMethodIsAdvised() {
		this.contextRunner.withUserConfiguration(PrimaryOrders.class, Reports.class, ReportJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(electionDataSource(context)).isSameAs(context.getBean("orders"));
			assertAdvised(context.getBean(ReportJob.class));
			awaitLeadership(context);
			assertThat(leaderIn(this.ordersUrl)).isEqualTo(nodeId(context));
			assertThat(tables(this.reportsUrl)).doesNotContain("LEADER_ELECTION_LEASE");
		});
	}

	@Test
	void qualifiedDataSourceIsChosen() {
		this.contextRunner.withUserConfiguration(Orders.class, QualifiedReports.class, ReportJob.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(electionDataSource(context)).isSameAs(context.getBean("reports"));
				assertAdvised(context.getBean(ReportJob.class));
				awaitLeadership(context);
				// Schema, election statements and dialect all went to the qualified
				// database.
				assertThat(leaderIn(this.reportsUrl)).isEqualTo(nodeId(context));
				assertThat(tables(this.ordersUrl)).doesNotContain("LEADER_ELECTION_LEASE");
			});
	}

	@Test
	void qualifiedDataSourceWinsOverPrimaryAndFencedWorkRunsInATransactionOfIt() {
		this.contextRunner.withUserConfiguration(PrimaryOrders.class, QualifiedReports.class, TransactionManagers.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DataSource reports = context.getBean("reports", DataSource.class);
				assertThat(electionDataSource(context)).isSameAs(reports);
				Election election = awaitLeadership(context);
				// The fence's connection is the one the reports transaction manager
				// bound.
				boolean reportsBound = election
					.runFenced((term) -> TransactionSynchronizationManager.hasResource(reports)
							&& !TransactionSynchronizationManager.hasResource(context.getBean("orders")));
				assertThat(reportsBound).isTrue();
			});
	}

	@Test
	void urlPropertyWinsAndTheElectionRunsOnADataSourceOfItsOwnThatClosesOnShutdown() {
		String electionUrl = h2Url();
		this.contextRunner.withUserConfiguration(PrimaryOrders.class, QualifiedReports.class, ReportJob.class)
			.withPropertyValues("leader-election.jdbc.url=" + electionUrl, "leader-election.jdbc.username=sa",
					"leader-election.jdbc.password=")
			.run((context) -> {
				// Boot's transaction manager manages 'orders', yet start-up succeeds: no
				// bean
				// can manage the starter's own DataSource, so fenced work uses its own.
				assertThat(context).hasNotFailed();
				HikariDataSource own = (HikariDataSource) electionDataSource(context);
				assertThat(own.getJdbcUrl()).isEqualTo(electionUrl);
				assertAdvised(context.getBean(ReportJob.class));
				Election election = awaitLeadership(context);
				assertThat(leaderIn(electionUrl)).isEqualTo(nodeId(context));
				assertThat(tables(this.ordersUrl)).doesNotContain("LEADER_ELECTION_LEASE");
				assertThat(tables(this.reportsUrl)).doesNotContain("LEADER_ELECTION_LEASE");
				boolean ownBound = election.runFenced((term) -> TransactionSynchronizationManager.hasResource(own));
				assertThat(ownBound).isTrue();
				context.close();
				assertThat(own.isClosed()).isTrue();
				// Closed after the election released its lease, not before.
				assertThat(leaderIn(electionUrl)).isNull();
			});
	}

	@Test
	void noDataSourceAndALeaderOnlyBeanFailStartup() {
		this.contextRunner.withUserConfiguration(ReportJob.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains(ReportJob.class.getName() + "#run",
					"no DataSource bean, and leader-election.jdbc.url is not set");
			assertThat(analysis.getAction()).contains("Define a DataSource", "leader-election.jdbc.url",
					"leader-election.enabled=false");
		});
	}

	@Test
	void leaderOnlyOnTheClassFailsStartupNamingTheClass() {
		this.contextRunner.withUserConfiguration(Orders.class, Reports.class, GuardedClass.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context).getDescription())
				.contains(GuardedClass.class.getName() + " (annotated on the class)");
		});
	}

	@Test
	void noDataSourceAndNoLeaderOnlyBeanStartQuietlyWithoutElection() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(ElectionService.class)
			.doesNotHaveBean(ElectionDataSource.class));
	}

	@Test
	void disabledOnPurposeStartsAndLeavesLeaderOnlyMethodsUnadvised() {
		this.contextRunner.withUserConfiguration(Orders.class, Reports.class, ReportJob.class)
			.withPropertyValues("leader-election.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(ElectionService.class);
				ReportJob job = context.getBean(ReportJob.class);
				assertThat(AopUtils.isAopProxy(job)).isFalse();
				job.run();
				assertThat(job.runs()).isEqualTo(1);
			});
	}

	@Test
	void transactionManagerOfAnotherDataSourceFailsStartup() {
		// Boot's transaction manager manages the primary 'orders'; the election is on
		// 'reports'.
		this.contextRunner.withUserConfiguration(PrimaryOrders.class, QualifiedReports.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(FencedTransactionManagerMismatchException.class);
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains("transaction manager 'transactionManager'",
					"manages DataSource 'orders'", "fence rows are in DataSource 'reports'");
			assertThat(analysis.getAction()).contains("Define a transaction manager bean for DataSource 'reports'");
		});
	}

	@Test
	void unsupportedDatabaseWithALeaderOnlyBeanFailsStartup() throws Exception {
		DataSource dataSource = LeaderElectionAutoConfigurationTests.dataSourceOf("Oracle");
		this.contextRunner.withBean(DataSource.class, () -> dataSource)
			.withUserConfiguration(ReportJob.class)
			.withPropertyValues("leader-election.jdbc.initialize-schema=never")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(analyze(context).getDescription()).contains("'Oracle'", "not supported");
			});
	}

	@Test
	void qualifiedDataSourceRunsLeaderOnlyMethodOnlyOnTheLeader() {
		ApplicationContextRunner nodes = this.contextRunner.withUserConfiguration(Orders.class, QualifiedReports.class,
				ReportJob.class);
		nodes.withPropertyValues("leader-election.node-id=node-a").run((a) -> {
			assertThat(a).hasNotFailed();
			awaitLeadership(a);
			nodes.withPropertyValues("leader-election.node-id=node-b").run((b) -> {
				assertThat(b).hasNotFailed();
				// node-b shares the qualified database, where node-a holds the lease.
				assertThat(leaderIn(this.reportsUrl)).isEqualTo("node-a");
				ReportJob onLeader = a.getBean(ReportJob.class);
				ReportJob onFollower = b.getBean(ReportJob.class);
				onLeader.run();
				onFollower.run();
				assertThat(onLeader.runs()).isEqualTo(1);
				assertThat(onFollower.runs()).isZero();
			});
		});
	}

	private static String h2Url() {
		return "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

	private static DataSource h2(Environment environment, String name) {
		return new SimpleDriverDataSource(new Driver(),
				Objects.requireNonNull(environment.getProperty("test." + name + "-url")), "sa", "");
	}

	private static DataSource electionDataSource(AssertableApplicationContext context) {
		return context.getBean(ElectionDataSource.class).getDataSource();
	}

	private static Election awaitLeadership(AssertableApplicationContext context) {
		Election election = context.getBean(ElectionService.class).election("default");
		await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
		return election;
	}

	private static String nodeId(AssertableApplicationContext context) {
		return context.getBean(ElectionService.class).nodeId();
	}

	private static String leaderIn(String url) {
		return new JdbcTemplate(new SimpleDriverDataSource(new Driver(), url, "sa", "")).queryForObject(
				"SELECT leader_id FROM leader_election_lease WHERE election_name = 'default'", String.class);
	}

	private static List<String> tables(String url) {
		return new JdbcTemplate(new SimpleDriverDataSource(new Driver(), url, "sa", "")).queryForList(
				"SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'", String.class);
	}

	private static void assertAdvised(Object bean) {
		assertThat(AopUtils.isAopProxy(bean)).isTrue();
		assertThat(Arrays.stream(((Advised) bean).getAdvisors()).map(Advisor::getClass).toList())
			.contains(LeaderOnlyAdvisor.class);
	}

	/**
	 * Analyze the start-up failure with the analyzers of this library, loaded as Spring
	 * Boot loads them, so that their registration is tested too.
	 */
	private static FailureAnalysis analyze(AssertableApplicationContext context) {
		ArgumentResolver arguments = ArgumentResolver.of(Environment.class, new MockEnvironment())
			.and(BeanFactory.class, new DefaultListableBeanFactory());
		// Boot's own analyzers that need classes absent here fail to load: skip them.
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, arguments, (type, name, failure) -> {
			});
		Throwable failure = context.getStartupFailure();
		return analyzers.stream()
			.filter((analyzer) -> analyzer.getClass().getName().startsWith("io.github.dbleader."))
			.map((analyzer) -> analyzer.analyze(failure))
			.filter(Objects::nonNull)
			.findFirst()
			.orElseThrow(() -> new AssertionError("No failure analysis of " + failure, failure));
	}

	@Configuration(proxyBeanMethods = false)
	static class Orders {

		@Bean
		DataSource orders(Environment environment) {
			return h2(environment, "orders");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrimaryOrders {

		@Bean
		@Primary
		DataSource orders(Environment environment) {
			return h2(environment, "orders");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Reports {

		@Bean
		DataSource reports(Environment environment) {
			return h2(environment, "reports");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class QualifiedReports {

		@Bean
		@LeaderElectionDataSource
		DataSource reports(Environment environment) {
			return h2(environment, "reports");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TransactionManagers {

		@Bean
		@Primary
		DataSourceTransactionManager ordersTransactionManager(DataSource orders) {
			return new DataSourceTransactionManager(orders);
		}

		@Bean
		DataSourceTransactionManager reportsTransactionManager(@LeaderElectionDataSource DataSource reports) {
			return new DataSourceTransactionManager(reports);
		}

	}

	static class ReportJob {

		private final AtomicInteger runs = new AtomicInteger();

		@LeaderOnly
		public void run() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

	@LeaderOnly
	static class GuardedClass {

		public void run() {
		}

	}

}
