package io.github.dbleader.election.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.it.SteppedDatabaseClock;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The cluster-lock statements of {@link JdbcLockRepository} against each real database.
 */
class JdbcLockIntegrationTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private static final LeaseTables TABLES = new LeaseTables("lock_test_lease", "lock_test_candidate");

	private HikariDataSource dataSource;

	private final AtomicInteger statements = new AtomicInteger();

	private JdbcTemplate jdbc;

	@AfterEach
	void close() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	private JdbcLockRepository repository(TestDatabase database) {
		this.dataSource = database.dataSource(database.url(), 4);
		database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(this.dataSource, SqlDialect.forName(database.platform()), TABLES);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("DROP TABLE IF EXISTS lock_fenced_work");
		this.jdbc.execute("CREATE TABLE lock_fenced_work (id INT PRIMARY KEY)");
		return node(database);
	}

	/**
	 * Another node's repository on the same tables, counting the statements it prepares.
	 */
	private JdbcLockRepository node(TestDatabase database) {
		return new JdbcLockRepository(new JdbcStore(new CountingDataSource(this.dataSource, this.statements),
				SqlDialect.forName(database.platform()), TABLES, Duration.ofSeconds(1)));
	}

	private long expiresAt(String key) {
		return this.jdbc.queryForObject("SELECT expires_at FROM " + TABLES.leaseTable() + " WHERE election_name = ?",
				Long.class, key);
	}

	/**
	 * Try the lock until the node takes it.
	 * @return the term it took
	 */
	private static long awaitLock(JdbcLockRepository node, String nodeId) {
		long[] taken = new long[1];
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			OptionalLong term = node.tryLock("lock:job", nodeId, AT_MOST);
			term.ifPresent((t) -> taken[0] = t);
			return term.isPresent();
		});
		return taken[0];
	}

	private long databaseNow(TestDatabase database) {
		return databaseNow(this.jdbc, database);
	}

	private static long databaseNow(JdbcTemplate jdbc, TestDatabase database) {
		return jdbc.queryForObject("SELECT " + SqlDialect.forName(database.platform()).currentTimeMillis()
				+ (database == TestDatabase.H2 ? " FROM DUAL" : ""), Long.class);
	}

	/**
	 * A lock taken, extended and released from a method with a transaction of the
	 * application's open gives its connection back to the lock's pool after each
	 * statement: Spring would otherwise bind it to that transaction until it ends, and a
	 * few long transactions that take locks would hold the small pool the heartbeat
	 * renews through (I8).
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void lockStatementsInsideTheCallersTransactionGiveTheirConnectionBackAtOnce(TestDatabase database) {
		repository(database);
		try (HikariDataSource lockPool = database.dataSource(database.url(), 2)) {
			JdbcLockRepository locks = new JdbcLockRepository(
					new JdbcStore(lockPool, SqlDialect.forName(database.platform()), TABLES, Duration.ofSeconds(1)));
			TransactionTemplate caller = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
			caller.setName("caller");
			caller.setReadOnly(true);
			caller.executeWithoutResult((status) -> {
				long term = locks.tryLock("lock:job", "a", AT_MOST).orElseThrow();
				assertThat(lockPool.getHikariPoolMXBean().getActiveConnections()).as("after tryLock").isZero();
				// The caller's transaction is as it was: the take ran a transaction of
				// its own.
				assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
				assertThat(TransactionSynchronizationManager.isSynchronizationActive()).isTrue();
				assertThat(TransactionSynchronizationManager.getCurrentTransactionName()).isEqualTo("caller");
				assertThat(TransactionSynchronizationManager.isCurrentTransactionReadOnly()).isTrue();
				assertThat(locks.extendLock("lock:job", "a", term, AT_MOST)).isTrue();
				assertThat(lockPool.getHikariPoolMXBean().getActiveConnections()).as("after extendLock").isZero();
				assertThat(locks.findLocks()).isNotEmpty();
				assertThat(lockPool.getHikariPoolMXBean().getActiveConnections()).as("after findLocks").isZero();
				assertThat(locks.releaseLock("lock:job", "a", term, Duration.ZERO, Duration.ZERO)).isTrue();
				assertThat(lockPool.getHikariPoolMXBean().getActiveConnections()).as("after releaseLock").isZero();
			});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theFirstTryCreatesTheRowAndATryThatFindsItTakenCostsOneStatement(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		OptionalLong term = a.tryLock("lock:job", "a", AT_MOST);
		assertThat(term).isPresent();
		// b has not seen the row yet: its update finds nothing to take, its insert a
		// duplicate.
		assertThat(b.tryLock("lock:job", "b", AT_MOST)).isEmpty();
		int before = this.statements.get();
		assertThat(b.tryLock("lock:job", "b", AT_MOST)).isEmpty();
		assertThat(this.statements.get() - before).as("statements of a try that finds the lock taken").isOne();
		assertThat(this.jdbc.queryForObject(
				"SELECT leader_id FROM " + TABLES.leaseTable() + " WHERE election_name = 'lock:job'", String.class))
			.isEqualTo("a");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void releaseKeepsTheLockUntilAtLeastForThenTheNextTermIsGreater(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		long first = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
		assertThat(a.releaseLock("lock:job", "b", first, Duration.ZERO, Duration.ZERO)).as("release by another node")
			.isFalse();
		assertThat(a.releaseLock("lock:job", "a", first + 1, Duration.ZERO, Duration.ZERO))
			.as("release of another term")
			.isFalse();
		assertThat(a.releaseLock("lock:job", "a", first, Duration.ofSeconds(2), Duration.ZERO)).isTrue();
		long expiresAt = expiresAt("lock:job");
		assertThat(b.tryLock("lock:job", "b", AT_MOST)).isEmpty();
		long second = awaitLock(b, "b");
		assertThat(databaseNow(database)).isGreaterThanOrEqualTo(expiresAt);
		assertThat(second).isGreaterThan(first);
		assertThat(b.releaseLock("lock:job", "b", second, Duration.ZERO, Duration.ZERO)).isTrue();
		long third = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
		assertThat(third).as("released without atLeastFor: free at once").isGreaterThan(second);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void extendMovesTheExpiryFromNowOnTheDatabaseClockForTheHolderOnlyWithOneStatement(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		long term = a.tryLock("lock:job", "a", Duration.ofSeconds(1)).orElseThrow();
		long acquiredExpiry = expiresAt("lock:job");
		assertThat(b.extendLock("lock:job", "b", term, AT_MOST)).as("another node").isFalse();
		assertThat(a.extendLock("lock:job", "a", term + 1, AT_MOST)).as("another term").isFalse();
		assertThat(expiresAt("lock:job")).isEqualTo(acquiredExpiry);
		long before = databaseNow(database);
		int statements = this.statements.get();
		assertThat(a.extendLock("lock:job", "a", term, AT_MOST)).isTrue();
		assertThat(this.statements.get() - statements).as("statements of an extension").isOne();
		long after = databaseNow(database);
		assertThat(expiresAt("lock:job")).isBetween(before + AT_MOST.toMillis(), after + AT_MOST.toMillis());
		// Past the expiry of the acquisition on the database clock: still held.
		await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow(database) > acquiredExpiry);
		assertThat(b.tryLock("lock:job", "b", AT_MOST)).isEmpty();
		assertThat(a.extendLock("lock:job", "a", term, AT_MOST)).as("again").isTrue();
		assertThat(a.<Long>runLockFenced("lock:job", "a", term, AT_MOST, (t) -> t)).as("same term").isEqualTo(term);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseAfterAnExtensionCountsItsAtLeastForFromTheExtensionAndTheAcquisitionsFromTheAcquisition(
			TestDatabase database) {
		JdbcLockRepository a = repository(database);
		long term = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
		long acquiredAt = column("acquired_at");
		await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow(database) > acquiredAt + 50);
		assertThat(a.extendLock("lock:job", "a", term, AT_MOST)).isTrue();
		long extendedAt = column("renewed_at");
		assertThat(extendedAt).isGreaterThan(acquiredAt);
		assertThat(column("acquired_at")).as("acquisition kept").isEqualTo(acquiredAt);
		assertThat(a.releaseLock("lock:job", "a", term, Duration.ofSeconds(20), Duration.ofSeconds(10))).isTrue();
		assertThat(expiresAt("lock:job")).as("the acquisition's atLeastFor ends later").isEqualTo(acquiredAt + 20_000);
		long next = a.forceRelease("lock:job").orElseThrow();
		long second = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
		assertThat(second).isGreaterThan(next);
		assertThat(a.extendLock("lock:job", "a", second, AT_MOST)).isTrue();
		long secondExtendedAt = column("renewed_at");
		assertThat(a.releaseLock("lock:job", "a", second, Duration.ZERO, Duration.ofSeconds(10))).isTrue();
		assertThat(expiresAt("lock:job")).as("the extension's atLeastFor ends later")
			.isEqualTo(secondExtendedAt + 10_000);
		assertThat(a.extendLock("lock:job", "a", second, AT_MOST)).as("after release").isFalse();
	}

	/**
	 * A release after the database clock stepped back keeps the lock taken for at most
	 * the atLeastFor from the release, not from an acquisition and an extension that the
	 * step put in the database's future: the lock is free again within it.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseAfterTheDatabaseClockSteppedBackKeepsTheLockAtMostAtLeastForLonger(TestDatabase database) {
		repository(database);
		SqlDialect dialect = SqlDialect.forName(database.platform());
		try (SteppedDatabaseClock clock = SteppedDatabaseClock.on(dialect, this.dataSource)) {
			DataSource stepped = clock.dataSource(this.dataSource);
			JdbcLockRepository a = new JdbcLockRepository(
					new JdbcStore(stepped, dialect, TABLES, Duration.ofSeconds(1)));
			JdbcLockRepository b = new JdbcLockRepository(
					new JdbcStore(stepped, dialect, TABLES, Duration.ofSeconds(1)));
			long term = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
			assertThat(a.extendLock("lock:job", "a", term, AT_MOST)).isTrue();
			clock.step(Duration.ofSeconds(-60));
			Duration atLeastFor = Duration.ofSeconds(2);
			assertThat(a.releaseLock("lock:job", "a", term, atLeastFor, Duration.ofSeconds(1))).isTrue();
			long releasedNoLaterThan = databaseNow(new JdbcTemplate(stepped), database);
			assertThat(expiresAt("lock:job") - releasedNoLaterThan).as("taken after the release, in ms")
				.isLessThanOrEqualTo(atLeastFor.toMillis());
			await("b takes the released lock").atMost(atLeastFor.plusSeconds(3))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> b.tryLock("lock:job", "b", AT_MOST).isPresent());
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anExpiredOrOperatorReleasedLockIsNotExtended(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		long expired = a.tryLock("lock:job", "a", Duration.ofMillis(200)).orElseThrow();
		long expiresAt = expiresAt("lock:job");
		await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow(database) >= expiresAt);
		assertThat(a.extendLock("lock:job", "a", expired, AT_MOST)).isFalse();
		long current = b.tryLock("lock:job", "b", AT_MOST).orElseThrow();
		assertThat(a.extendLock("lock:job", "a", expired, AT_MOST)).as("after another node took it").isFalse();
		a.forceRelease("lock:job");
		assertThat(b.extendLock("lock:job", "b", current, AT_MOST)).as("after an operator's release").isFalse();
		assertThat(awaitLock(a, "a")).isGreaterThan(current);
	}

	private long column(String column) {
		return this.jdbc.queryForObject(
				"SELECT " + column + " FROM " + TABLES.leaseTable() + " WHERE election_name = ?", Long.class,
				"lock:job");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anUnreleasedLockExpiresAfterAtMostFor(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		long first = a.tryLock("lock:job", "a", Duration.ofSeconds(1)).orElseThrow();
		assertThat(b.tryLock("lock:job", "b", AT_MOST)).isEmpty();
		assertThat(awaitLock(b, "b")).isGreaterThan(first);
		assertThat(a.releaseLock("lock:job", "a", first, Duration.ZERO, Duration.ZERO)).as("stale release").isFalse();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void fencedWorkOfAStaleAcquisitionIsRejected(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		long stale = a.tryLock("lock:job", "a", Duration.ofSeconds(1)).orElseThrow();
		assertThat(a.<Integer>runLockFenced("lock:job", "a", stale, AT_MOST,
				(term) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (1)")))
			.isOne();
		long current = awaitLock(b, "b");
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> a.runLockFenced("lock:job", "a", stale,
				AT_MOST, (term) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (2)")));
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> b.runLockFenced("lock:job", "b", stale,
				AT_MOST, (term) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (3)")));
		b.runLockFenced("lock:job", "b", current, AT_MOST,
				(term) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (4)"));
		assertThat(b.releaseLock("lock:job", "b", current, Duration.ZERO, Duration.ZERO)).isTrue();
		assertThatExceptionOfType(LockNotHeldException.class).as("after release")
			.isThrownBy(() -> b.runLockFenced("lock:job", "b", current, AT_MOST,
					(term) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (5)")));
		assertThat(this.jdbc.queryForList("SELECT id FROM lock_fenced_work ORDER BY id", Integer.class))
			.containsExactly(1, 4);
	}

	/**
	 * A holder whose belief outlasts its lock at the database, as after a forward step of
	 * the database clock (locks have no whole-lease watch): another node takes the lock,
	 * and the fenced work that the holder still believes it may do is refused.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aHolderThatStillBelievesAfterTheDatabaseGaveItsLockAwayCommitsNoFencedWork(TestDatabase database) {
		// The holder's monotonic clock stands still, so the database clock runs ahead of
		// it.
		ClusterLocks a = new ClusterLocks(repository(database), "a", () -> 0L);
		ClusterLocks b = new ClusterLocks(node(database), "b");
		HeldLock stale = a.tryLock("job", Duration.ofSeconds(1), Duration.ZERO).orElseThrow();
		long expiresAt = expiresAt("lock:job");
		await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow(database) >= expiresAt);
		HeldLock current = b.tryLock("job", AT_MOST, Duration.ZERO).orElseThrow();
		assertThat(stale.isHeld()).as("believed on the holder's clock").isTrue();
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(
				() -> stale.runFenced((term) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (1)")));
		current.runFenced((term) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (2)"));
		assertThat(stale.extend(AT_MOST)).as("the stale holder's extension").isFalse();
		assertThat(stale.release()).as("the stale holder's release").isFalse();
		assertThat(this.jdbc.queryForList("SELECT id FROM lock_fenced_work", Integer.class)).containsExactly(2);
		assertThat(b.findLocks()).singleElement().satisfies((lock) -> {
			assertThat(lock.holder()).isEqualTo("b");
			assertThat(lock.term()).isEqualTo(current.term()).isGreaterThan(stale.term());
			assertThat(lock.held()).isTrue();
		});
	}

	/**
	 * A lock whose row has no fence row (taken before locks had fence rows) gets one at
	 * its next take, with the new holder and term, so that the new holder's fenced work
	 * passes.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aLockWithoutAFenceRowGetsOneAtItsNextTake(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		long first = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
		assertThat(a.releaseLock("lock:job", "a", first, Duration.ZERO, Duration.ZERO)).isTrue();
		this.jdbc.update("DELETE FROM " + TABLES.fenceTable() + " WHERE election_name = 'lock:job'");
		JdbcLockRepository b = node(database);
		long second = b.tryLock("lock:job", "b", AT_MOST).orElseThrow();
		assertThat(second).isGreaterThan(first);
		assertThat(this.jdbc
			.queryForMap("SELECT leader_id, term FROM " + TABLES.fenceTable() + " WHERE election_name = 'lock:job'"))
			.containsValues("b", second);
		Long fenced = b.runLockFenced("lock:job", "b", second, AT_MOST, (term) -> term);
		assertThat(fenced).isEqualTo(second);
	}

	/**
	 * The take-over of an expired lock waits for the fenced transaction of its holder:
	 * the holder's work, checked while it held the lock, commits before anyone else holds
	 * it.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTakeOverWaitsForTheFencedTransactionOfTheHolder(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		long term = a.tryLock("lock:job", "a", Duration.ofSeconds(1)).orElseThrow();
		long expiresAt = expiresAt("lock:job");
		a.runLockFenced("lock:job", "a", term, AT_MOST, (t) -> {
			this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (1)");
			await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow(database) > expiresAt);
			boolean taken;
			try {
				// Short: where the statement waits for the fence until it times out, the
				// server
				// may still run it once the fence is gone, and take the lock for b.
				taken = b.tryLock("lock:job", "b", Duration.ofSeconds(2)).isPresent();
			}
			catch (RuntimeException ex) {
				// The statement timed out waiting for the fence (outcome unknown): not
				// taken.
				taken = false;
			}
			assertThat(taken).as("taken during the holder's fenced transaction").isFalse();
			return null;
		});
		assertThat(this.jdbc.queryForList("SELECT id FROM lock_fenced_work", Integer.class)).containsExactly(1);
		awaitLock(b, "b");
	}

	/**
	 * A take that finds an expired lock whose previous holder's fenced transaction is
	 * still open gives up within its statement timeout and takes nothing, not even once
	 * that transaction has ended: the server must not carry out, later, a take whose
	 * client gave up. With a statement timeout of 1.5 s the client's socket timeout (1.5
	 * s) comes before the query timeout (whole seconds: 2 s) would cancel the statement
	 * at the server.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTakeThatGaveUpWaitingForAFencedRunTakesNothingOnceTheRunHasEnded(TestDatabase database) throws Exception {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = new JdbcLockRepository(new JdbcStore(this.dataSource,
				SqlDialect.forName(database.platform()), TABLES, Duration.ofMillis(1500)));
		long term = awaitLock(a, "a");
		CountDownLatch fenced = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<Void> run = openFencedRun(a, term, fenced, finish);
		try {
			assertThat(fenced.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(a.releaseLock("lock:job", "a", term, Duration.ZERO, Duration.ZERO)).isTrue();
			OptionalLong taken;
			try {
				taken = b.tryLock("lock:job", "b", AT_MOST);
			}
			catch (RuntimeException ex) {
				// Waited for the fence past its limit: not taken.
				taken = OptionalLong.empty();
			}
			assertThat(taken).as("taken during the holder's fenced transaction").isEmpty();
		}
		finally {
			finish.countDown();
		}
		run.get(10, TimeUnit.SECONDS);
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(5))
			.until(() -> "a".equals(this.jdbc.queryForObject(
					"SELECT leader_id FROM " + TABLES.leaseTable() + " WHERE election_name = 'lock:job'",
					String.class)));
		assertThat(b.tryLock("lock:job", "b", AT_MOST)).as("free once the run has ended").isPresent();
	}

	/**
	 * An operator's release waits for the holder's fenced transaction in flight, then
	 * bumps the term: the holder's later fenced work is refused, its own release finds
	 * nothing, and the lock is free at once.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void forceReleaseWaitsForTheFencedTransactionThenFencesTheHolderOut(TestDatabase database) throws Exception {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository operator = node(database);
		assertThat(operator.forceRelease("lock:job")).as("no row yet").isEmpty();
		long term = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
		CompletableFuture<OptionalLong> release = new CompletableFuture<>();
		a.runLockFenced("lock:job", "a", term, AT_MOST, (t) -> {
			this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (1)");
			CompletableFuture.runAsync(() -> release.complete(operator.forceRelease("lock:job")));
			// The release waits for this transaction (it times out after its statement
			// timeout).
			await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !release.isDone());
			return null;
		});
		long released = releasedTerm(release, operator);
		assertThat(released).isGreaterThan(term);
		assertThat(this.jdbc.queryForList("SELECT id FROM lock_fenced_work", Integer.class)).containsExactly(1);
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> a.runLockFenced("lock:job", "a", term,
				AT_MOST, (t) -> this.jdbc.update("INSERT INTO lock_fenced_work (id) VALUES (2)")));
		assertThat(a.releaseLock("lock:job", "a", term, Duration.ZERO, Duration.ZERO)).isFalse();
		assertThat(a.findLocks()).singleElement().satisfies((lock) -> {
			assertThat(lock.name()).isEqualTo("job");
			assertThat(lock.holder()).isNull();
			assertThat(lock.term()).isEqualTo(released);
			assertThat(lock.held()).isFalse();
		});
		assertThat(node(database).tryLock("lock:job", "b", AT_MOST).orElseThrow()).isGreaterThan(released);
		assertThat(this.jdbc.queryForList("SELECT id FROM lock_fenced_work", Integer.class)).containsExactly(1);
	}

	private static long releasedTerm(CompletableFuture<OptionalLong> release, JdbcLockRepository operator)
			throws Exception {
		try {
			return release.get(10, TimeUnit.SECONDS).orElseThrow();
		}
		catch (ExecutionException ex) {
			// The release timed out waiting for the fence: the operator tries again.
			return operator.forceRelease("lock:job").orElseThrow();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void purgeLeavesLockRowsAlone(TestDatabase database) {
		JdbcLockRepository a = repository(database);
		long term = a.tryLock("lock:job", "a", Duration.ofMillis(200)).orElseThrow();
		long expiresAt = expiresAt("lock:job");
		// Long enough expired for the purge to delete it, were it an election's row.
		await().atMost(Duration.ofSeconds(10)).until(() -> databaseNow(database) > expiresAt + 100);
		JdbcLeaseRepository elections = new JdbcLeaseRepository(this.dataSource,
				SqlDialect.forName(database.platform()), TABLES, Duration.ofSeconds(1));
		assertThat(elections.create("election", "a", Duration.ofMillis(1))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			elections.purge(Duration.ofMillis(50));
			return elections.find("election").isEmpty();
		});
		assertThat(elections.find("lock:job")).isPresent();
		assertThat(a.tryLock("lock:job", "a", AT_MOST).orElseThrow()).isGreaterThan(term);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aKeepAliveExtendsTheHeldLocksInOneStatementWithoutWaitingForTheirFencedRuns(TestDatabase database)
			throws Exception {
		JdbcLockRepository a = repository(database);
		JdbcLockRepository b = node(database);
		long job = a.tryLock("lock:job", "a", AT_MOST).orElseThrow();
		long report = a.tryLock("lock:report", "a", AT_MOST).orElseThrow();
		long other = b.tryLock("lock:other", "b", AT_MOST).orElseThrow();
		CountDownLatch fenced = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<Void> run = openFencedRun(a, job, fenced, finish);
		try {
			assertThat(fenced.await(10, TimeUnit.SECONDS)).isTrue();
			long before = expiresAt("lock:job");
			int statements = this.statements.get();
			Map<String, Long> held = new LinkedHashMap<>();
			held.put("lock:job", job);
			held.put("lock:report", report);
			// Not this node's, and not this acquisition's: neither is extended.
			held.put("lock:other", other);
			assertThat(a.extendLocks("a", held, Duration.ofMinutes(5))).isEqualTo(2);
			assertThat(this.statements.get() - statements).as("statements of the keep-alive").isOne();
			assertThat(expiresAt("lock:job")).isGreaterThan(before);
			assertThat(a.extendLocks("a", Map.of("lock:report", report + 1), Duration.ofMinutes(5))).isZero();
		}
		finally {
			finish.countDown();
		}
		run.get(10, TimeUnit.SECONDS);
		assertThat(expiresAt("lock:other") - databaseNow(database)).isLessThanOrEqualTo(AT_MOST.toMillis());
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTryThatLosesToAFencedRunNeitherWaitsNorLogsAboveDebug(TestDatabase database) throws Exception {
		JdbcLockRepository a = repository(database);
		ClusterLocks b = new ClusterLocks(node(database), "b");
		long term = awaitLock(a, "a");
		CountDownLatch fenced = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<Void> run = openFencedRun(a, term, fenced, finish);
		ListAppender<ILoggingEvent> logged = new ListAppender<>();
		Logger library = (Logger) LoggerFactory.getLogger("io.github.dbleader");
		logged.start();
		library.addAppender(logged);
		try {
			assertThat(fenced.await(10, TimeUnit.SECONDS)).isTrue();
			for (int i = 0; i < 3; i++) {
				long started = System.nanoTime();
				assertThat(b.tryLock("job", AT_MOST, Duration.ZERO)).isEmpty();
				assertThat(Duration.ofNanos(System.nanoTime() - started)).as("a losing try waited")
					.isLessThan(Duration.ofMillis(500));
			}
		}
		finally {
			library.detachAppender(logged);
			finish.countDown();
		}
		run.get(10, TimeUnit.SECONDS);
		assertThat(logged.list).filteredOn((event) -> event.getLevel().isGreaterOrEqual(Level.INFO)).isEmpty();
	}

	/**
	 * A fenced run of node a on lock:job that stays open until {@code finish}.
	 * @return the run; {@code fenced} counts down once its fence holds
	 */
	private static CompletableFuture<Void> openFencedRun(JdbcLockRepository a, long term, CountDownLatch fenced,
			CountDownLatch finish) {
		return CompletableFuture.runAsync(() -> a.runLockFenced("lock:job", "a", term, AT_MOST, (fencedTerm) -> {
			fenced.countDown();
			try {
				finish.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return null;
		}));
	}

	/**
	 * Counts the statements prepared or created on its connections.
	 */
	private static final class CountingDataSource extends DelegatingDataSource {

		private final AtomicInteger statements;

		CountingDataSource(DataSource target, AtomicInteger statements) {
			super(target);
			this.statements = statements;
		}

		@Override
		public Connection getConnection() throws java.sql.SQLException {
			Connection connection = super.getConnection();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().startsWith("prepare") || method.getName().equals("createStatement")) {
							this.statements.incrementAndGet();
						}
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					});
		}

	}

}
