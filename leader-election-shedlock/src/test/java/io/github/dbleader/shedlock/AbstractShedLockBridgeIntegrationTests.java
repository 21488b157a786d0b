package io.github.dbleader.shedlock;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockState;
import io.github.dbleader.test.TestDatabase;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The migration bridge beside ShedLock's own {@code JdbcTemplateLockProvider} on one real
 * database, as in a rolling deploy: old nodes on ShedLock's provider, new nodes on
 * {@link ClusterLockProvider} with a {@link ShedLockBridge} on the same table. Each test
 * runs with old nodes on their own clocks (ShedLock's default) and on the database's
 * ({@code usingDbTime()}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractShedLockBridgeIntegrationTests {

	private static final LeaseTables TABLES = new LeaseTables("bridge_test_lease", "bridge_test_candidate");

	private static final String SHEDLOCK_TABLE = "bridge_test_shedlock";

	private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration AT_LEAST_FOR = Duration.ofMillis(1500);

	private final TestDatabase database;

	private HikariDataSource dataSource;

	AbstractShedLockBridgeIntegrationTests(TestDatabase database) {
		this.database = database;
	}

	/** The old nodes' time. */
	enum OldNodes {

		/** ShedLock's default: each node's clock. */
		NODE_TIME,

		/** {@code usingDbTime()}. */
		DB_TIME

	}

	@BeforeAll
	void createTables() {
		this.dataSource = this.database.dataSource(10);
		this.database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		this.database.dropTables(this.dataSource, SHEDLOCK_TABLE);
		LeaseSchema.create(this.dataSource, SqlDialect.forName(this.database.platform()), TABLES);
		// ShedLock's table as its README creates it on each database.
		String timestamp = this.database.platform().equals("mysql") ? "TIMESTAMP(3)" : "TIMESTAMP";
		new JdbcTemplate(this.dataSource).execute("CREATE TABLE " + SHEDLOCK_TABLE + " (name VARCHAR(64) NOT NULL,"
				+ " lock_until " + timestamp + " NOT NULL, locked_at " + timestamp + " NOT NULL, locked_by VARCHAR(255)"
				+ " NOT NULL, PRIMARY KEY (name))");
	}

	@AfterAll
	void closeDataSource() {
		this.dataSource.close();
	}

	@ParameterizedTest
	@EnumSource(OldNodes.class)
	void anOldNodesLockKeepsNewNodesOutAndTheOtherWayRound(OldNodes time) {
		String name = lockName();
		LockProvider oldNode = oldNode(time, "old-host");
		ClusterLockProvider newNode = newNode(time, "new-node");
		SimpleLock old = oldNode.lock(config(name, Duration.ZERO)).orElseThrow();
		assertThat(newNode.lock(config(name, Duration.ZERO))).as("new node while an old node holds the lock").isEmpty();
		assertThat(clusterLockHeld(name)).as("cluster lock taken without ShedLock's row").isFalse();
		old.unlock();
		SimpleLock taken = newNode.lock(config(name, Duration.ZERO)).orElseThrow();
		assertThat(clusterLockHeld(name)).isTrue();
		assertThat(oldNode.lock(config(name, Duration.ZERO))).as("old node while a new node holds the lock").isEmpty();
		taken.unlock();
		assertThat(clusterLockHeld(name)).isFalse();
		oldNode.lock(config(name, Duration.ZERO)).orElseThrow().unlock();
	}

	/**
	 * A run of each side released at once, with {@code lockAtLeastFor}: the other side
	 * waits for it. Both at the same time, to wait once.
	 */
	@ParameterizedTest
	@EnumSource(OldNodes.class)
	void afterAReleaseLockAtLeastForKeepsTheOtherSideWaiting(OldNodes time) {
		LockProvider oldNode = oldNode(time, "old-host");
		ClusterLockProvider newNode = newNode(time, "new-node");
		String fromOld = lockName();
		String fromNew = lockName();
		long released = System.nanoTime();
		oldNode.lock(config(fromOld, AT_LEAST_FOR)).orElseThrow().unlock();
		newNode.lock(config(fromNew, AT_LEAST_FOR)).orElseThrow().unlock();
		assertThat(newNode.lock(config(fromOld, Duration.ZERO))).as("new node after the old node's run").isEmpty();
		assertThat(oldNode.lock(config(fromNew, Duration.ZERO))).as("old node after the new node's run").isEmpty();
		AtomicLong newTook = new AtomicLong();
		AtomicLong oldTook = new AtomicLong();
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
			takeOnce(newTook, newNode, fromOld);
			takeOnce(oldTook, oldNode, fromNew);
			return newTook.get() != 0 && oldTook.get() != 0;
		});
		Duration atLeast = AT_LEAST_FOR.minus(precision(time));
		assertThat(Duration.ofNanos(newTook.get() - released)).as("new node's wait").isGreaterThan(atLeast);
		assertThat(Duration.ofNanos(oldTook.get() - released)).as("old node's wait").isGreaterThan(atLeast);
	}

	/**
	 * How much earlier than {@code lockAtLeastFor} a lock may be free: MySQL Connector/J
	 * sends a {@code Timestamp} to MariaDB (which announces itself as version 5.5.5) in
	 * whole seconds, ShedLock's node times and the bridge's alike; database times keep
	 * milliseconds.
	 */
	private static Duration precision(OldNodes time) {
		return (time == OldNodes.NODE_TIME) ? Duration.ofSeconds(1) : Duration.ofMillis(100);
	}

	private static void takeOnce(AtomicLong took, LockProvider node, String name) {
		if (took.get() == 0) {
			node.lock(config(name, Duration.ZERO)).ifPresent((lock) -> {
				took.set(System.nanoTime());
				lock.unlock();
			});
		}
	}

	@ParameterizedTest
	@EnumSource(OldNodes.class)
	void aNewNodeThatDoesNotGetTheClusterLockGivesShedLocksRowBack(OldNodes time) {
		String name = lockName();
		ClusterLocks elsewhere = clusterLocks("elsewhere");
		HeldLock held = elsewhere.tryLock(name, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
		assertThat(newNode(time, "new-node").lock(config(name, Duration.ZERO))).isEmpty();
		assertThat(oldNode(time, "old-host").lock(config(name, Duration.ZERO))).as("ShedLock's row given back")
			.isPresent();
		held.release();
	}

	@ParameterizedTest
	@EnumSource(OldNodes.class)
	void anExtensionExtendsShedLocksRowToo(OldNodes time) {
		String name = lockName();
		ClusterLockProvider newNode = newNode(time, "new-node");
		SimpleLock lock = newNode.lock(config(name, Duration.ZERO)).orElseThrow();
		Instant until = shedLockUntil(name);
		SimpleLock extended = lock.extend(Duration.ofMinutes(5), Duration.ZERO).orElseThrow();
		assertThat(shedLockUntil(name)).isAfter(until.plus(Duration.ofMinutes(4)));
		assertThat(oldNode(time, "old-host").lock(config(name, Duration.ZERO))).isEmpty();
		extended.unlock();
		assertThat(oldNode(time, "old-host").lock(config(name, Duration.ZERO))).isPresent();
	}

	/**
	 * A lock taken inside a transaction of the caller's on the same data source commits
	 * ShedLock's row at once, and the caller's rollback does not undo it (ShedLock
	 * #3577).
	 */
	@ParameterizedTest
	@EnumSource(OldNodes.class)
	void aLockTakenInsideACallersTransactionKeepsOldNodesOutAtOnceAndAfterItsRollback(OldNodes time) {
		String name = lockName();
		ClusterLockProvider newNode = newNode(time, "new-node");
		LockProvider oldNode = oldNode(time, "old-host");
		TransactionTemplate caller = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		assertThatIllegalStateException().isThrownBy(() -> caller.executeWithoutResult((status) -> {
			new JdbcTemplate(this.dataSource).queryForList("SELECT name FROM " + SHEDLOCK_TABLE + " WHERE 1 = 0");
			assertThat(newNode.lock(config(name, Duration.ZERO))).isPresent();
			assertThat(
					CompletableFuture.supplyAsync(() -> oldNode.lock(config(name, Duration.ZERO)).isPresent()).join())
				.as("an old node's take, on another thread, while the caller's transaction is open")
				.isFalse();
			throw new IllegalStateException("roll back");
		})).withMessage("roll back");
		assertThat(oldNode.lock(config(name, Duration.ZERO))).as("an old node's take after the caller's rollback")
			.isEmpty();
	}

	/**
	 * Two old and two new nodes take one job as fast as they can, each run holding it for
	 * a random moment, for a second: no two runs overlap, and both kinds of node run it.
	 */
	@ParameterizedTest
	@EnumSource(OldNodes.class)
	void oldAndNewNodesTakingOneJobAtRandomNeverOverlap(OldNodes time) throws Exception {
		String name = lockName();
		List<LockProvider> nodes = List.of(oldNode(time, "old-1"), oldNode(time, "old-2"), newNode(time, "new-1"),
				newNode(time, "new-2"));
		AtomicInteger running = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
		ExecutorService threads = Executors.newFixedThreadPool(nodes.size());
		try {
			List<Future<Integer>> runs = new ArrayList<>();
			for (LockProvider node : nodes) {
				runs.add(threads.submit(() -> {
					int count = 0;
					while (System.nanoTime() < end) {
						Duration atLeastFor = Duration.ofMillis(ThreadLocalRandom.current().nextInt(3));
						Optional<SimpleLock> lock = node.lock(config(name, atLeastFor));
						if (lock.isPresent()) {
							count++;
							if (running.incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							work(ThreadLocalRandom.current().nextInt(2000));
							running.decrementAndGet();
							lock.get().unlock();
						}
					}
					return count;
				}));
			}
			int oldRuns = runs.get(0).get() + runs.get(1).get();
			int newRuns = runs.get(2).get() + runs.get(3).get();
			assertThat(overlaps.get()).as("overlapping runs (%d old, %d new)", oldRuns, newRuns).isZero();
			assertThat(oldRuns).as("runs on old nodes").isPositive();
			assertThat(newRuns).as("runs on new nodes").isPositive();
		}
		finally {
			threads.shutdownNow();
		}
	}

	/** A run's work: the CPU busy for some microseconds. */
	private static void work(long micros) {
		long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(micros);
		while (System.nanoTime() < until) {
			Thread.onSpinWait();
		}
	}

	private LockProvider oldNode(OldNodes time, String host) {
		JdbcTemplateLockProvider.Configuration.Builder configuration = JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(this.dataSource))
			.withTableName(SHEDLOCK_TABLE)
			.withLockedByValue(host);
		return new JdbcTemplateLockProvider(
				(time == OldNodes.DB_TIME) ? configuration.usingDbTime().build() : configuration.build());
	}

	private ClusterLockProvider newNode(OldNodes time, String nodeId) {
		ShedLockTable table = ShedLockTable.of(SHEDLOCK_TABLE);
		return new ClusterLockProvider(clusterLocks(nodeId), new ShedLockBridge(this.dataSource,
				(time == OldNodes.DB_TIME) ? table.usingDbTime() : table, nodeId, STATEMENT_TIMEOUT));
	}

	private ClusterLocks clusterLocks(String nodeId) {
		return new ClusterLocks(new JdbcLockRepository(new JdbcStore(this.dataSource,
				SqlDialect.forName(this.database.platform()), TABLES, STATEMENT_TIMEOUT)), nodeId);
	}

	private static LockConfiguration config(String name, Duration atLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, Duration.ofSeconds(30), atLeastFor);
	}

	private boolean clusterLockHeld(String name) {
		return clusterLocks("reader").findLocks()
			.stream()
			.filter((lock) -> lock.name().equals(name))
			.anyMatch(LockState::held);
	}

	private Instant shedLockUntil(String name) {
		return new JdbcTemplate(this.dataSource)
			.queryForObject("SELECT lock_until FROM " + SHEDLOCK_TABLE + " WHERE name = ?", Timestamp.class, name)
			.toInstant();
	}

	private static String lockName() {
		return "bridge-" + UUID.randomUUID().toString().substring(0, 8);
	}

}
