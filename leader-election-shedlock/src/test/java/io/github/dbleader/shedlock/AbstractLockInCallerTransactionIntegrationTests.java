package io.github.dbleader.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockState;
import io.github.dbleader.test.TestDatabase;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A lock never joins the transaction of its caller (ShedLock issue #3577: two instances
 * ran the same job because the lock's statements ran in the caller's open transaction,
 * uncommitted until it committed and undone by its rollback). Each way to take a cluster
 * lock ({@code @ClusterLock}, {@link ClusterLocks}, ShedLock's {@code @SchedulerLock} on
 * {@link ClusterLockProvider}) is called from a {@code @Transactional} method of an
 * application whose locks share its {@code DataSource} (no dedicated pool), and another
 * node, on connections of its own, sees the lock taken (or released) before the caller's
 * transaction ends and after it rolls back; the lock's statements, whether they take the
 * lock or not, commit none of the caller's own writes (ShedLock issue #3683).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractLockInCallerTransactionIntegrationTests {

	private static final LeaseTables TABLES = new LeaseTables("tx_lock_lease", "tx_lock_candidate");

	private static final String CALLER_TABLE = "tx_lock_caller_rows";

	private final TestDatabase database;

	private final HikariDataSource otherNodePool;

	private final ClusterLocks otherNode;

	private final JdbcTemplate otherJdbc;

	private final ConfigurableApplicationContext application;

	AbstractLockInCallerTransactionIntegrationTests(TestDatabase database) {
		this.database = database;
		SqlDialect dialect = SqlDialect.forName(database.platform());
		this.otherNodePool = database.dataSource(2);
		database.dropTables(this.otherNodePool, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(this.otherNodePool, dialect, TABLES);
		this.otherJdbc = new JdbcTemplate(this.otherNodePool);
		this.otherJdbc.execute("DROP TABLE IF EXISTS " + CALLER_TABLE);
		this.otherJdbc.execute("CREATE TABLE " + CALLER_TABLE + " (id VARCHAR(64) PRIMARY KEY)");
		this.otherNode = new ClusterLocks(
				new JdbcLockRepository(new JdbcStore(this.otherNodePool, dialect, TABLES, Duration.ofSeconds(5))),
				"other-node");
		this.application = new SpringApplicationBuilder(LockingApplication.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + database.url(), "spring.datasource.username=" + database.username(),
					"spring.datasource.password=" + database.password(), "spring.jmx.enabled=false",
					"spring.main.banner-mode=off", "leader-election.node-id=app-node",
					"leader-election.jdbc.dedicated-pool=false",
					"leader-election.jdbc.table-name=" + TABLES.leaseTable(),
					"leader-election.jdbc.candidate-table-name=" + TABLES.candidateTable(),
					"leader-election.jdbc.initialize-schema=never")
			.run();
	}

	@AfterAll
	void stop() {
		this.application.close();
		this.otherNode.close();
		this.otherNodePool.close();
	}

	@BeforeEach
	void freeLocks() {
		for (Way way : Way.values()) {
			this.otherNode.forceRelease(way.held);
			this.otherNode.forceRelease(way.released);
		}
		this.otherJdbc.update("DELETE FROM " + CALLER_TABLE);
	}

	@ParameterizedTest
	@EnumSource
	void aLockTakenInARolledBackTransactionIsHeldBeforeTheEndAndAfterTheRollback(Way way) {
		Caller caller = this.application.getBean(Caller.class);
		assertThatIllegalStateException().isThrownBy(() -> caller.inTransaction(() -> {
			caller.write("caller-row");
			boolean ran = way.take(this.application, way.held,
					() -> assertThat(otherNodeTakes(way.held)).as("another node's take while the run holds the lock")
						.isFalse());
			assertThat(ran).as("the run").isTrue();
			assertThat(otherNodeTakes(way.held)).as("another node's take after the run, at least for 30s").isFalse();
			assertThat(otherNodeSees(way.held)).as("the lock's row, read by another node")
				.hasValueSatisfying((lock) -> {
					assertThat(lock.held()).isTrue();
					assertThat(lock.holder()).isEqualTo("app-node");
				});
			assertThat(otherNodeCountsCallerRows()).as("the caller's uncommitted row, seen by another node").isZero();
			throw new IllegalStateException("roll back");
		})).withMessage("roll back");
		assertThat(otherNodeTakes(way.held)).as("another node's take after the caller's rollback").isFalse();
		assertThat(otherNodeSees(way.held)).as("the lock's row after the caller's rollback")
			.hasValueSatisfying((lock) -> assertThat(lock.holder()).isEqualTo("app-node"));
		assertThat(otherNodeCountsCallerRows()).as("the caller's row after its rollback").isZero();
	}

	@ParameterizedTest
	@EnumSource
	void aLockReleasedInAnOpenTransactionIsFreeBeforeItsEnd(Way way) {
		Caller caller = this.application.getBean(Caller.class);
		assertThatIllegalStateException().isThrownBy(() -> caller.inTransaction(() -> {
			caller.write("caller-row");
			assertThat(way.take(this.application, way.released, () -> {
			})).as("the run").isTrue();
			assertThat(otherNodeTakes(way.released))
				.as("another node's take of the released lock, before the" + " caller's transaction ends")
				.isTrue();
			assertThat(otherNodeCountsCallerRows()).as("the caller's uncommitted row, seen by another node").isZero();
			throw new IllegalStateException("roll back");
		})).withMessage("roll back");
		assertThat(otherNodeSees(way.released)).as("the other node's acquisition after the caller's rollback")
			.hasValueSatisfying((lock) -> assertThat(lock.holder()).isEqualTo("other-node"));
		assertThat(otherNodeCountsCallerRows()).as("the caller's row after its rollback").isZero();
	}

	@ParameterizedTest
	@EnumSource
	void aLockRefusedInAnOpenTransactionCommitsNoneOfItsWrites(Way way) {
		assertThat(otherNodeHolds(way.released)).as("the other node's acquisition").isTrue();
		Caller caller = this.application.getBean(Caller.class);
		assertThatIllegalStateException().isThrownBy(() -> caller.inTransaction(() -> {
			caller.write("caller-row");
			assertThat(way.take(this.application, way.released, () -> {
			})).as("the run, while another node holds the lock").isFalse();
			assertThat(otherNodeCountsCallerRows()).as("the caller's uncommitted row, seen by another node").isZero();
			throw new IllegalStateException("roll back");
		})).withMessage("roll back");
		assertThat(otherNodeCountsCallerRows()).as("the caller's row after its rollback").isZero();
		assertThat(otherNodeSees(way.released)).as("the lock after the caller's rollback")
			.hasValueSatisfying((lock) -> assertThat(lock.holder()).isEqualTo("other-node"));
	}

	/**
	 * Another node, on a thread and connections of its own, takes the lock for a minute.
	 */
	private boolean otherNodeHolds(String name) {
		return onOtherThread(
				() -> this.otherNode.tryLock(name, Duration.ofSeconds(60), Duration.ofSeconds(60)).isPresent());
	}

	/**
	 * Another node, on a thread and connections of its own, tries the lock and releases
	 * it at once.
	 */
	private boolean otherNodeTakes(String name) {
		return onOtherThread(() -> {
			Optional<HeldLock> lock = this.otherNode.tryLock(name, Duration.ofSeconds(60), Duration.ZERO);
			lock.ifPresent(HeldLock::release);
			return lock.isPresent();
		});
	}

	private Optional<LockState> otherNodeSees(String name) {
		return onOtherThread(
				() -> this.otherNode.findLocks().stream().filter((lock) -> lock.name().equals(name)).findFirst());
	}

	private int otherNodeCountsCallerRows() {
		return onOtherThread(
				() -> this.otherJdbc.queryForObject("SELECT COUNT(*) FROM " + CALLER_TABLE, Integer.class));
	}

	private static <T> T onOtherThread(Supplier<T> work) {
		try {
			return CompletableFuture.supplyAsync(work).get(20, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("The other node failed or waited: " + ex, ex);
		}
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + " on " + this.database;
	}

	/**
	 * The ways to take a lock, each with a lock kept 30s after its run and one released
	 * after it.
	 */
	enum Way {

		CLUSTER_LOCK_ANNOTATION("tx-annotated-held", "tx-annotated-released") {
			@Override
			boolean take(ConfigurableApplicationContext application, String name, Runnable inRun) {
				Jobs jobs = application.getBean(Jobs.class);
				Boolean ran = name.equals(this.held) ? jobs.annotatedHeld(inRun) : jobs.annotatedReleased(inRun);
				return Boolean.TRUE.equals(ran);
			}
		},

		CLUSTER_LOCKS_API("tx-api-held", "tx-api-released") {
			@Override
			boolean take(ConfigurableApplicationContext application, String name, Runnable inRun) {
				Duration atLeastFor = name.equals(this.held) ? Duration.ofSeconds(30) : Duration.ZERO;
				try {
					return application.getBean(ClusterLocks.class)
						.runLocked(name, Duration.ofSeconds(60), atLeastFor, true, (lock) -> inRun.run());
				}
				catch (RuntimeException ex) {
					throw ex;
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}
		},

		SCHEDULER_LOCK("tx-shedlock-held", "tx-shedlock-released") {
			@Override
			boolean take(ConfigurableApplicationContext application, String name, Runnable inRun) {
				Jobs jobs = application.getBean(Jobs.class);
				Boolean ran = name.equals(this.held) ? jobs.shedLockHeld(inRun) : jobs.shedLockReleased(inRun);
				return Boolean.TRUE.equals(ran);
			}
		};

		final String held;

		final String released;

		Way(String held, String released) {
			this.held = held;
			this.released = released;
		}

		/**
		 * Run under the lock.
		 * @return whether the run ran
		 */
		abstract boolean take(ConfigurableApplicationContext application, String name, Runnable inRun);

	}

	/** The application: its own transactions, and the locks on the same data source. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableSchedulerLock(defaultLockAtMostFor = "60s")
	static class LockingApplication {

		@Bean
		Caller caller(JdbcTemplate jdbc) {
			return new Caller(jdbc);
		}

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	/** The caller, whose transaction the locks are taken in. */
	static class Caller {

		private final JdbcTemplate jdbc;

		Caller(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		public void inTransaction(Runnable work) {
			work.run();
		}

		public void write(String id) {
			this.jdbc.update("INSERT INTO " + CALLER_TABLE + " (id) VALUES (?)", id);
		}

	}

	/** Runs under locks, each with a fixed name and hold. */
	static class Jobs {

		@ClusterLock(name = "tx-annotated-held", atMostFor = "60s", atLeastFor = "30s")
		public Boolean annotatedHeld(Runnable inRun) {
			inRun.run();
			return true;
		}

		@ClusterLock(name = "tx-annotated-released", atMostFor = "60s")
		public Boolean annotatedReleased(Runnable inRun) {
			inRun.run();
			return true;
		}

		@SchedulerLock(name = "tx-shedlock-held", lockAtMostFor = "60s", lockAtLeastFor = "30s")
		public Boolean shedLockHeld(Runnable inRun) {
			inRun.run();
			return true;
		}

		@SchedulerLock(name = "tx-shedlock-released", lockAtMostFor = "60s")
		public Boolean shedLockReleased(Runnable inRun) {
			inRun.run();
			return true;
		}

	}

}
