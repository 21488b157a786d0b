package io.github.dbleader.autoconfigure;

import java.util.Map;
import org.springframework.core.env.MapPropertySource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockRepository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link LeaderElectionAutoConfiguration}.
 */
class LeaderElectionAutoConfigurationTests {

	private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url);

	@Test
	void backsOffWithoutDataSource() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ElectionService.class)
				.doesNotHaveBean(LeaseRepository.class));
	}

	@Test
	void backsOffWithTwoDataSourcesAndNoPrimary() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
			.withUserConfiguration(TwoDataSourcesConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ElectionService.class));
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner.withPropertyValues("leader-election.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ElectionService.class)
				.doesNotHaveBean(LeaderElectionDataSourceScriptDatabaseInitializer.class));
	}

	@Test
	void createsElectionServiceWithDefaults() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ElectionService.class)
				.hasSingleBean(JdbcLeaseRepository.class)
				.hasSingleBean(LeaderElectionLifecycle.class);
			ElectionService service = context.getBean(ElectionService.class);
			assertThat(service.settings()).isEqualTo(new ElectionSettings(Duration.ofSeconds(10), Duration.ofSeconds(2),
					Duration.ofSeconds(2), Duration.ofSeconds(1)));
			assertThat(service.elections()).extracting(Election::name).containsExactly("default");
			assertThat(service.nodeId()).matches(".+:" + ProcessHandle.current().pid());
			assertThat(context.getBean(JdbcLeaseRepository.class).dialect()).isEqualTo(SqlDialect.H2);
			assertThat(service.isRunning()).isTrue();
		});
	}

	@Test
	void emptyElectionsJoinsNoneAndTheHeartbeatLeavesTheDatabaseAlone() {
		this.contextRunner
			.withPropertyValues("leader-election.elections=", "leader-election.lease-duration=1s",
					"leader-election.renew-interval=100ms")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				assertThat(service.isRunning()).isTrue();
				assertThat(service.elections()).isEmpty();
				tablesOnceCreated(context, "LEADER_ELECTION_LEASE_NODES");
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				// Rounds run every 100 ms; none may write the node's row.
				await().during(Duration.ofMillis(500))
					.atMost(Duration.ofSeconds(2))
					.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM leader_election_lease_nodes", Integer.class),
							(rows) -> rows == 0);
			});
	}

	@Test
	void defaultNodeIdIncludesKnownServerPort() {
		this.contextRunner.withPropertyValues("server.port=8123")
			.run((context) -> assertThat(context.getBean(ElectionService.class).nodeId())
				.endsWith(":8123:" + ProcessHandle.current().pid()));
	}

	@Test
	void bindsEveryProperty() {
		this.contextRunner
			.withPropertyValues("leader-election.node-id=node-a", "leader-election.lease-duration=20s",
					"leader-election.renew-interval=3s", "leader-election.guard=4s",
					"leader-election.statement-timeout=1500ms", "leader-election.release-on-shutdown=false",
					"leader-election.elections=jobs,reports", "leader-election.jdbc.table-name=custom_lease",
					"leader-election.jdbc.candidate-table-name=custom_candidate",
					"leader-election.jdbc.initialize-schema=always", "leader-election.jdbc.platform=h2",
					"leader-election.jdbc.dedicated-pool=false", "leader-election.jdbc.dedicated-pool-size=3")
			.run((context) -> {
				LeaderElectionProperties properties = context.getBean(LeaderElectionProperties.class);
				assertThat(properties.isReleaseOnShutdown()).isFalse();
				assertThat(properties.getJdbc().getInitializeSchema()).isEqualTo(DatabaseInitializationMode.ALWAYS);
				assertThat(properties.getJdbc().getDedicatedPoolSize()).isEqualTo(3);
				ElectionService service = context.getBean(ElectionService.class);
				assertThat(service.nodeId()).isEqualTo("node-a");
				assertThat(service.settings()).isEqualTo(new ElectionSettings(Duration.ofSeconds(20),
						Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofMillis(1500)));
				assertThat(service.elections()).extracting(Election::name).containsExactlyInAnyOrder("jobs", "reports");
				assertThat(context.getBean(ElectionConnectionPool.class).isDedicated()).isFalse();
				assertThat(tablesOnceCreated(context, "CUSTOM_LEASE", "CUSTOM_CANDIDATE"))
					.doesNotContain("LEADER_ELECTION_LEASE");
			});
	}

	@Test
	void guardAndStatementTimeoutDefaultToFractionsOfLeaseAndRenewInterval() {
		this.contextRunner.withPropertyValues("leader-election.lease-duration=30s", "leader-election.renew-interval=4s")
			.run((context) -> assertThat(context.getBean(ElectionService.class).settings())
				.isEqualTo(new ElectionSettings(Duration.ofSeconds(30), Duration.ofSeconds(4), Duration.ofSeconds(6),
						Duration.ofSeconds(2))));
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			lease-duration           | 0s        | positive duration
			lease-duration           | -5s       | positive duration
			renew-interval           | 0ms       | positive duration
			guard                    | -1s       | positive duration
			statement-timeout        | 0s        | positive duration
			guard                    | 10s       | shorter than lease-duration
			renew-interval           | 5s        | at most PT4S
			statement-timeout        | 2s        | shorter than renew-interval
			node-id                  | ' '       | 1 to 255 characters
			jdbc.table-name          | bad-name  | letters, digits or underscores
			jdbc.table-name          | 1lease    | letters, digits or underscores
			jdbc.candidate-table-name| a;drop    | letters, digits or underscores
			jdbc.candidate-table-name| leader_election_lease | other than 'leader_election_lease'
			jdbc.candidate-table-name| leader_election_lease_fence | and 'leader_election_lease_fence'
			jdbc.candidate-table-name| leader_election_lease_nodes | and 'leader_election_lease_fence'
			jdbc.candidate-table-name| leader_election_lease_pins | other than 'leader_election_lease'
			jdbc.table-name          | lease_table_name_of_fifty_eight_characters_for_the_test_xy | at most 57 letters
			jdbc.platform            | oracle    | mysql (also for MariaDB), mariadb, postgresql or h2
			jdbc.dedicated-pool-size | 0         | at least 1
			""")
	void invalidValueFailsStartupWithAnalysisNamingPropertyValueAndAllowed(String property, String value,
			String allowed) {
		this.contextRunner.withPropertyValues("leader-election." + property + "=" + value)
			.run(failsWith("leader-election." + property, value.isBlank() ? null : value, allowed));
	}

	@Test
	void tooLongNodeIdFailsStartup() {
		String nodeId = "n".repeat(256);
		this.contextRunner.withPropertyValues("leader-election.node-id=" + nodeId)
			.run(failsWith("leader-election.node-id", nodeId, "1 to 255 characters"));
	}

	@Test
	void rankDefaultsToTheApplicationsVersion() {
		this.contextRunner.withPropertyValues("spring.application.version=2.7.1")
			.run((context) -> assertThat(context.getBean(ElectionService.class).rank()).isEqualTo("2.7.1"));
	}

	@Test
	void rankIsEmptyWhenTheApplicationsVersionIsUnknown() {
		this.contextRunner.run((context) -> assertThat(context.getBean(ElectionService.class).rank()).isEmpty());
	}

	@Test
	void configuredRankWinsOverTheApplicationsVersion() {
		this.contextRunner.withPropertyValues("spring.application.version=2.7.1", "leader-election.rank=blue-7")
			.run((context) -> assertThat(context.getBean(ElectionService.class).rank()).isEqualTo("blue-7"));
	}

	@Test
	void tooLongRankFailsStartupNamingTheProperty() {
		String rank = "9".repeat(65);
		this.contextRunner.withPropertyValues("leader-election.rank=" + rank)
			.run(failsWith("leader-election.rank", rank, "at most 64 characters"));
	}

	@Test
	void electionsListedTwiceAreJoinedOnceInTheirFirstOrder() {
		this.contextRunner.withPropertyValues("leader-election.elections=reports,jobs,reports,billing,jobs")
			.run((context) -> assertThat(context.getBean(LeaderElectionProperties.class).determineElections())
				.containsExactly("reports", "jobs", "billing"));
	}

	@Test
	void blankElectionNameFailsStartup() {
		this.contextRunner.withPropertyValues("leader-election.elections[0]=jobs", "leader-election.elections[1]= ")
			.run(failsWith("leader-election.elections", null, "names of 1 to 128 characters"));
	}

	@Test
	void tooLongElectionNameFailsStartup() {
		this.contextRunner.withPropertyValues("leader-election.elections=" + "e".repeat(129))
			.run(failsWith("leader-election.elections", null, "names of 1 to 128 characters"));
	}

	@Test
	void electionNamesTheCoreRefusesFailStartupNamingTheProperty() {
		// The rules of ElectionNames, checked once: a lock's row, a partition's election
		// and
		// a name MySQL would take for another are refused as the property they came from.
		for (String name : new String[] { "lock:reports", "partition:orders:1", "jobs " }) {
			this.contextRunner
				.withInitializer(untrimmed(
						Map.of("leader-election.elections[0]", "billing", "leader-election.elections[1]", name)))
				.run(failsWith("leader-election.elections", null, "not starting with 'lock:' or 'partition:'"));
		}
	}

	@Test
	void nodeIdEndingWithASpaceFailsStartupNamingTheProperty() {
		this.contextRunner.withInitializer(untrimmed(Map.of("leader-election.node-id", "node-a ")))
			.run(failsWith("leader-election.node-id", "node-a ", "not ending with a space"));
	}

	/** Properties whose values keep their spaces, which withPropertyValues trims. */
	private static ApplicationContextInitializer<ConfigurableApplicationContext> untrimmed(
			Map<String, Object> properties) {
		return (context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("untrimmed", properties));
	}

	@Test
	void unsupportedDetectedDatabaseFailsStartupNamingThePlatformProperty() throws Exception {
		DataSource dataSource = dataSourceOf("Oracle");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
			.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("leader-election.jdbc.initialize-schema=never")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context, new MockEnvironment());
				assertThat(analysis.getDescription()).contains("leader-election.jdbc.platform", "'Oracle'",
						"not supported");
				assertThat(analysis.getAction()).contains("leader-election.jdbc.platform",
						"mysql (also for MariaDB), mariadb, postgresql or h2");
			});
	}

	@Test
	void unsupportedDatabaseOfTheUrlFailsStartupWithoutAConnection() {
		// Nothing listens there: the platform comes from the URL alone.
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource();
		dataSource.setUrl("jdbc:sqlserver://nowhere:1433;databaseName=app");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
			.withBean(DataSource.class, () -> dataSource)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context, new MockEnvironment());
				assertThat(analysis.getDescription()).contains("leader-election.jdbc.platform", "'sqlserver'",
						"DataSource's URL", "not supported");
				assertThat(analysis.getAction()).contains("mysql (also for MariaDB), mariadb, postgresql or h2");
			});
	}

	@Test
	void embeddedDatabaseGetsTablesByDefault() {
		this.contextRunner.withPropertyValues("leader-election.jdbc.table-name=embedded_lease")
			.run((context) -> tablesOnceCreated(context, "EMBEDDED_LEASE", "LEADER_ELECTION_CANDIDATE"));
	}

	@Test
	void neverInitializeSchemaCreatesNoTables() {
		this.contextRunner
			.withPropertyValues("leader-election.jdbc.initialize-schema=never", "leader-election.elections=")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(LeaderElectionDataSourceScriptDatabaseInitializer.class);
				assertThat(tables(context)).doesNotContain("LEADER_ELECTION_LEASE", "LEADER_ELECTION_CANDIDATE");
			});
	}

	@Test
	void electionServiceAndRepositoryDependOnDatabaseInitialization() {
		this.contextRunner.run((context) -> {
			String[] initializers = context
				.getBeanNamesForType(LeaderElectionDataSourceScriptDatabaseInitializer.class);
			assertThat(initializers).hasSize(1);
			assertThat(context.getBeanFactory().getBeanDefinition("electionService").getDependsOn())
				.contains(initializers[0]);
			assertThat(context.getBeanFactory().getBeanDefinition("leaderElectionLeaseRepository").getDependsOn())
				.contains(initializers[0]);
			assertThat(context.getBeanFactory().getBeanDefinition("leaderElectionLockRepository").getDependsOn())
				.contains(initializers[0]);
		});
	}

	@Test
	void clusterLocksUseTheLockRepositoryOrTheApplicationsOwn() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(JdbcLockRepository.class);
			assertThat(context.getBean(JdbcLockRepository.class).dialect()).isEqualTo(SqlDialect.H2);
			assertThat(context.getBean(ClusterLocks.class).tryLock("job", Duration.ofSeconds(30), Duration.ZERO))
				.isPresent();
		});
		this.contextRunner.withBean("userLockRepository", LockRepository.class, () -> mock(LockRepository.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(LockRepository.class).doesNotHaveBean(JdbcLockRepository.class);
				assertThat(context.getBean(ClusterLocks.class).tryLock("job", Duration.ofSeconds(30), Duration.ZERO))
					.as("the mock takes no lock")
					.isEmpty();
			});
	}

	@Test
	void runsUnderClusterLocksSpreadByAPauseOfAtMost100MillisecondsUnlessConfiguredOtherwise() {
		this.contextRunner.run((context) -> assertThat(context.getBean(ClusterLocks.class).getRunSpread())
			.isEqualTo(Duration.ofMillis(100)));
		this.contextRunner.withPropertyValues("leader-election.locks.spread=0")
			.run((context) -> assertThat(context.getBean(ClusterLocks.class).getRunSpread()).isZero());
		// ClusterLocks is lazy: its first use fails, saying why.
		this.contextRunner.withPropertyValues("leader-election.locks.spread=-1ms")
			.run((context) -> assertThatException().isThrownBy(() -> context.getBean(ClusterLocks.class))
				.havingRootCause()
				.withMessageContaining("leader-election.locks.spread"));
	}

	@Test
	void usesDedicatedPoolBuiltFromHikariSettingsAndClosesItOnShutdown() {
		this.contextRunner.withPropertyValues("spring.datasource.hikari.pool-name=app").run((context) -> {
			ElectionConnectionPool pool = context.getBean(ElectionConnectionPool.class);
			assertThat(pool.isDedicated()).isTrue();
			HikariDataSource dedicated = (HikariDataSource) pool.getDataSource();
			assertThat(dedicated.getPoolName()).isEqualTo("app-leader-election");
			assertThat(dedicated.getMaximumPoolSize()).isEqualTo(2);
			assertThat(dedicated.getJdbcUrl()).isEqualTo(context.getBean(HikariDataSource.class).getJdbcUrl());
			assertThat(dedicated.getConnectionTimeout()).isEqualTo(1000);
			context.close();
			assertThat(dedicated.isClosed()).isTrue();
		});
	}

	@Test
	void startsOnRefreshAndReleasesLeadershipOnShutdown() {
		this.contextRunner
			.withPropertyValues("leader-election.lease-duration=3s", "leader-election.renew-interval=200ms")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
				context.close();
				// The context's pool is closed now; look with a connection of our own.
				JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url, "sa", ""));
				assertThat(service.isRunning()).isFalse();
				// Released (I10): the lease is vacant at once, not after the lease
				// duration.
				assertThat(jdbc.queryForObject(
						"SELECT leader_id FROM leader_election_lease WHERE election_name = 'default'", String.class))
					.isNull();
			});
	}

	@Test
	void keepsLeaseOnShutdownWhenReleaseIsDisabled() {
		this.contextRunner
			.withPropertyValues("leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
					"leader-election.release-on-shutdown=false", "leader-election.node-id=keeper")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
				context.close();
				// The context's pool is closed now; look with a connection of our own.
				JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url, "sa", ""));
				assertThat(jdbc.queryForObject(
						"SELECT leader_id FROM leader_election_lease WHERE election_name = 'default'", String.class))
					.isEqualTo("keeper");
			});
	}

	@Test
	void userElectionServiceAndRepositoryReplaceAutoConfiguredOnes() {
		this.contextRunner.withUserConfiguration(UserBeansConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ElectionService.class).hasSingleBean(LeaseRepository.class);
			assertThat(context.getBean(ElectionService.class).nodeId()).isEqualTo("user-node");
			assertThat(context.getBean(LeaseRepository.class)).isSameAs(context.getBean("userLeaseRepository"));
		});
	}

	@Test
	void leadershipListenerBeansAreTold() {
		this.contextRunner.withUserConfiguration(ListenerConfiguration.class)
			.withPropertyValues("leader-election.renew-interval=200ms", "leader-election.lease-duration=3s")
			.run((context) -> {
				RecordingListener listener = context.getBean(RecordingListener.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> listener.granted.size() == 1);
				assertThat(listener.granted).containsExactly("default");
			});
	}

	private static ContextConsumer<AssertableApplicationContext> failsWith(String property, String value,
			String allowed) {
		return (context) -> {
			assertThat(context).hasFailed();
			MockEnvironment environment = new MockEnvironment();
			if (value != null) {
				environment.setProperty(property, value);
			}
			FailureAnalysis analysis = analyze(context, environment);
			assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
			assertThat(analysis.getDescription()).contains("'" + property + "'");
			if (value != null) {
				assertThat(analysis.getDescription()).contains(value);
			}
			assertThat(analysis.getAction()).contains(property).contains(allowed);
		};
	}

	/**
	 * Return a mock data source whose connections report the given database product.
	 * @param product the product name
	 * @return the data source
	 * @throws Exception never: mock calls declare it
	 */
	static DataSource dataSourceOf(String product) throws Exception {
		DataSource dataSource = mock(DataSource.class);
		Connection connection = mock(Connection.class);
		DatabaseMetaData metaData = mock(DatabaseMetaData.class);
		given(dataSource.getConnection()).willReturn(connection);
		given(connection.getMetaData()).willReturn(metaData);
		given(metaData.getDatabaseProductName()).willReturn(product);
		return dataSource;
	}

	private static FailureAnalysis analyze(AssertableApplicationContext context, Environment environment) {
		// The failed context has no environment to offer: give the analyzer what Boot
		// would.
		return new InvalidLeaderElectionPropertyFailureAnalyzer(environment).analyze(context.getStartupFailure());
	}

	/**
	 * The tables, once those expected exist: the election creates them when it starts, on
	 * its heartbeat thread.
	 */
	private static List<String> tablesOnceCreated(AssertableApplicationContext context, String... expected) {
		return await().atMost(Duration.ofSeconds(5))
			.until(() -> tables(context), (tables) -> tables.containsAll(List.of(expected)));
	}

	private static List<String> tables(AssertableApplicationContext context) {
		return new JdbcTemplate(context.getBean(DataSource.class)).queryForList(
				"SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'", String.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSourcesConfiguration {

		@Bean
		DataSource one() {
			return mock(DataSource.class);
		}

		@Bean
		DataSource two() {
			return mock(DataSource.class);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeansConfiguration {

		@Bean
		LeaseRepository userLeaseRepository(DataSource dataSource) {
			LeaseTables tables = LeaseTables.defaults();
			return new JdbcLeaseRepository(dataSource, SqlDialect.H2, tables, Duration.ofSeconds(1));
		}

		@Bean
		ElectionService userElectionService(LeaseRepository repository) {
			return new ElectionService(repository, ElectionSettings.defaults(), "user-node", LeadershipListener.NONE);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		@Bean
		RecordingListener recordingListener() {
			return new RecordingListener();
		}

	}

	static class RecordingListener implements LeadershipListener {

		final List<String> granted = new java.util.concurrent.CopyOnWriteArrayList<>();

		@Override
		public void granted(String election, String nodeId, long term) {
			this.granted.add(election);
		}

	}

}
