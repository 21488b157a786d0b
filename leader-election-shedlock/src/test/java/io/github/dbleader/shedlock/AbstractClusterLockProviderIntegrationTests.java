package io.github.dbleader.shedlock;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockState;
import io.github.dbleader.test.TestDatabase;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own contract tests of a lock provider ({@code shedlock-test-support}: the
 * generic ones, its fuzz test from eight threads, and those of extensible providers) run
 * against {@link ClusterLockProvider} on a real database. Whether a lock is taken is read
 * from its row, by the database clock.
 */
abstract class AbstractClusterLockProviderIntegrationTests extends AbstractExtensibleLockProviderIntegrationTest {

	private static final LeaseTables TABLES = new LeaseTables("shedlock_test_lease", "shedlock_test_candidate");

	/**
	 * The data source of each database, its tables created once per class: ShedLock's
	 * tests need an instance per test (each has a lock name of its own).
	 */
	private static final Map<TestDatabase, HikariDataSource> dataSources = new EnumMap<>(TestDatabase.class);

	private final ClusterLocks locks;

	private final ClusterLockProvider provider;

	AbstractClusterLockProviderIntegrationTests(TestDatabase database) {
		SqlDialect dialect = SqlDialect.forName(database.platform());
		HikariDataSource dataSource = dataSources.computeIfAbsent(database, (created) -> {
			HikariDataSource pool = created.dataSource(4);
			created.dropTables(pool, TABLES.allTables().toArray(String[]::new));
			LeaseSchema.create(pool, dialect, TABLES);
			return pool;
		});
		this.locks = new ClusterLocks(
				new JdbcLockRepository(new JdbcStore(dataSource, dialect, TABLES, Duration.ofSeconds(5))),
				"shedlock-test");
		this.provider = new ClusterLockProvider(this.locks);
	}

	@AfterAll
	static void closeDataSources() {
		dataSources.values().forEach(HikariDataSource::close);
		dataSources.clear();
	}

	@Override
	protected ExtensibleLockProvider getLockProvider() {
		return this.provider;
	}

	@Override
	protected void assertLocked(String lockName) {
		assertThat(held(lockName)).as("lock '%s' taken at the database", lockName).isTrue();
	}

	@Override
	protected void assertUnlocked(String lockName) {
		assertThat(held(lockName)).as("lock '%s' taken at the database", lockName).isFalse();
	}

	/**
	 * Excluded: it takes a lock with {@code lockAtMostFor} of 2 ms and expects to get it.
	 * The first take of a lock, which creates its row, reads the new term back in a
	 * second statement and reports the lock taken only if it has not expired by then, so
	 * that it never hands out an acquisition that has lapsed already; a 2 ms lock often
	 * has (later takes answer the term in the taking statement itself). The same contract
	 * with a lock that lives long enough to be taken is
	 * {@link #anExpiredLockIsNotExtended()}.
	 */
	@Override
	@Test
	@Disabled("takes a 2 ms lock on a new row, which has usually expired before its term is read back; see anExpiredLockIsNotExtended")
	public void shouldNotBeAbleToExtendExpiredLock() {
	}

	@Test
	void anExpiredLockIsNotExtended() {
		SimpleLock lock = getLockProvider().lock(lockConfig(this.LOCK_NAME1, Duration.ofMillis(300), Duration.ZERO))
			.orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> !held(this.LOCK_NAME1));
		assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
		assertUnlocked(this.LOCK_NAME1);
		assertThat(getLockProvider().lock(lockConfig(this.LOCK_NAME1))).as("free for the next run").isPresent();
	}

	private boolean held(String lockName) {
		return this.locks.findLocks().stream().filter((lock) -> lock.name().equals(lockName)).anyMatch(LockState::held);
	}

}
