package io.github.dbleader.shedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.shedlock.ClusterLockProvider;
import io.github.dbleader.shedlock.ShedLockBridge;
import io.github.dbleader.shedlock.ShedLockTable;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the migration bridge's part of {@link ClusterLockProviderAutoConfiguration}:
 * off by default, on with {@code leader-election.shedlock.bridge.table-name}, its
 * properties, and the start-up check of ShedLock's table, on an embedded database.
 */
class ShedLockBridgeAutoConfigurationTests {

	/**
	 * ShedLock's table as its README creates it, made when the database is first opened.
	 */
	private static final String SHEDLOCK_TABLE = "CREATE TABLE IF NOT EXISTS %s (name VARCHAR(64) NOT NULL,"
			+ " lock_until TIMESTAMP(3) NOT NULL, locked_at TIMESTAMP(3) NOT NULL, locked_by VARCHAR(255) NOT NULL,"
			+ " PRIMARY KEY (name))";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				ClusterLockProviderAutoConfiguration.class))
		.withPropertyValues("leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
				"leader-election.node-id=here", "leader-election.elections=");

	@Test
	void isOffByDefault() {
		withShedLockTable("shedlock").run((context) -> {
			assertThat(context).hasSingleBean(ClusterLockProvider.class).doesNotHaveBean(ShedLockBridge.class);
			assertThat(context.getBean(ClusterLockProvider.class).getBridge()).isEmpty();
		});
	}

	@Test
	void tableNameSwitchesItOnWithShedLocksDefaults() {
		withShedLockTable("shedlock").withPropertyValues("leader-election.shedlock.bridge.table-name=shedlock")
			.run((context) -> {
				assertThat(context).hasSingleBean(ShedLockBridge.class);
				ShedLockBridge bridge = context.getBean(ShedLockBridge.class);
				assertThat(context.getBean(ClusterLockProvider.class).getBridge()).containsSame(bridge);
				assertThat(bridge.getTable()).isEqualTo(ShedLockTable.of("shedlock"));
			});
	}

	@Test
	void propertiesBindToTheTable() {
		withTable("CREATE TABLE IF NOT EXISTS old_locks (lock_name VARCHAR(64) PRIMARY KEY, until TIMESTAMP(3),"
				+ " taken_at TIMESTAMP(3), taken_by VARCHAR(255))")
			.withPropertyValues("leader-election.shedlock.bridge.table-name=old_locks",
					"leader-election.shedlock.bridge.name-column=lock_name",
					"leader-election.shedlock.bridge.lock-until-column=until",
					"leader-election.shedlock.bridge.locked-at-column=taken_at",
					"leader-election.shedlock.bridge.locked-by-column=taken_by")
			.run((context) -> {
				assertThat(context.getBean(ShedLockBridge.class).getTable()).isEqualTo(
						new ShedLockTable("old_locks", "lock_name", "until", "taken_at", "taken_by", false, null));
			});
	}

	@Test
	void timeSettingsBind() {
		ApplicationContextRunner runner = withShedLockTable("shedlock")
			.withPropertyValues("leader-election.shedlock.bridge.table-name=shedlock");
		runner.withPropertyValues("leader-election.shedlock.bridge.use-db-time=true")
			.run((context) -> assertThat(context.getBean(ShedLockBridge.class).getTable())
				.isEqualTo(ShedLockTable.of("shedlock").usingDbTime()));
		runner.withPropertyValues("leader-election.shedlock.bridge.time-zone=UTC")
			.run((context) -> assertThat(context.getBean(ShedLockBridge.class).getTable().timeZone())
				.isEqualTo(TimeZone.getTimeZone("UTC")));
		runner
			.withPropertyValues("leader-election.shedlock.bridge.use-db-time=true",
					"leader-election.shedlock.bridge.time-zone=UTC")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("either the database's time or a time zone"));
	}

	@Test
	void aMissingTableStopsTheStartUp() {
		withShedLockTable("shedlock").withPropertyValues("leader-election.shedlock.bridge.table-name=shed_lock")
			.run((context) -> assertThat(startUpFailure(context))
				.hasMessageContaining("ShedLock's table 'shed_lock' cannot be read")
				.hasMessageContaining("leader-election.shedlock.bridge.table-name"));
	}

	@Test
	void aMissingColumnStopsTheStartUp() {
		withShedLockTable("shedlock")
			.withPropertyValues("leader-election.shedlock.bridge.table-name=shedlock",
					"leader-election.shedlock.bridge.locked-by-column=owner")
			.run((context) -> assertThat(startUpFailure(context))
				.hasMessageContaining("ShedLock's table 'shedlock' cannot be read")
				.hasMessageContaining("OWNER"));
	}

	@Test
	void backsOffForABridgeOfTheApplications() {
		withShedLockTable("shedlock").withPropertyValues("leader-election.shedlock.bridge.table-name=shedlock")
			.withUserConfiguration(OwnBridgeConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(ShedLockBridge.class);
				assertThat(context.getBean(ShedLockBridge.class).getTable().tableName()).isEqualTo("other");
				assertThat(context.getBean(ClusterLockProvider.class).getBridge())
					.containsSame(context.getBean(ShedLockBridge.class));
			});
	}

	/**
	 * An old node on ShedLock's own provider and the application's {@code @SchedulerLock}
	 * method under the bridge keep each other out, with node time and with database time.
	 */
	@Test
	void aSchedulerLockMethodAndAnOldNodeKeepEachOtherOut() {
		for (boolean dbTime : new boolean[] { false, true }) {
			withShedLockTable("shedlock")
				.withPropertyValues("leader-election.shedlock.bridge.table-name=shedlock",
						"leader-election.shedlock.bridge.use-db-time=" + dbTime)
				.withUserConfiguration(JobsConfiguration.class)
				.run((context) -> {
					JdbcTemplateLockProvider.Configuration.Builder oldNode = JdbcTemplateLockProvider.Configuration
						.builder()
						.withJdbcTemplate(new JdbcTemplate(context.getBean(DataSource.class)))
						.withLockedByValue("old-host");
					LockProvider old = new JdbcTemplateLockProvider(
							dbTime ? oldNode.usingDbTime().build() : oldNode.build());
					Jobs jobs = context.getBean(Jobs.class);
					jobs.setOld(old);
					SimpleLock held = old.lock(config()).orElseThrow();
					jobs.report();
					assertThat(jobs.oldNodeTookTheLockDuringARun()).as("runs while the old node holds the lock")
						.isEmpty();
					held.unlock();
					jobs.report();
					assertThat(jobs.oldNodeTookTheLockDuringARun())
						.as("whether the old node took the lock during a run")
						.containsExactly(false);
					assertThat(old.lock(config())).as("the old node after the run").isPresent();
				});
		}
	}

	/** The bridge's own exception among the causes of the failed start-up. */
	private static Throwable startUpFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			if (cause instanceof IllegalStateException) {
				return cause;
			}
		}
		throw new AssertionError("no IllegalStateException among the causes", context.getStartupFailure());
	}

	private static LockConfiguration config() {
		return new LockConfiguration(ClockProvider.now(), "report", Duration.ofSeconds(30), Duration.ZERO);
	}

	private ApplicationContextRunner withShedLockTable(String table) {
		return withTable(SHEDLOCK_TABLE.formatted(table));
	}

	private ApplicationContextRunner withTable(String ddl) {
		return this.contextRunner.withPropertyValues(
				"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;INIT=" + ddl);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBridgeConfiguration {

		@Bean
		ShedLockBridge ownBridge(DataSource dataSource) {
			return new ShedLockBridge(dataSource, ShedLockTable.of("other"), "here", Duration.ofSeconds(1));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "30s")
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		private LockProvider old;

		private final List<Boolean> oldNodeTook = new ArrayList<>();

		// Through the proxy: a class-based proxy has fields of its own.
		public void setOld(LockProvider old) {
			this.old = old;
		}

		public List<Boolean> oldNodeTookTheLockDuringARun() {
			return this.oldNodeTook;
		}

		@SchedulerLock(name = "report")
		public void report() {
			Optional<SimpleLock> taken = this.old.lock(config());
			taken.ifPresent(SimpleLock::unlock);
			this.oldNodeTook.add(taken.isPresent());
		}

	}

}
