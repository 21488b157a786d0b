package io.github.dbleader.election.jdbc;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

import javax.sql.DataSource;

import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockState;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.transaction.PlatformTransactionManager;

import static io.github.dbleader.election.jdbc.FencedTransactionTemplate.inTransaction;

/**
 * {@link LockRepository} on a relational database through {@link JdbcTemplate}: cluster
 * locks are rows of the lease table ({@link LeaseTables}), named with the prefix
 * {@value ClusterLocks#KEY_PREFIX}, renewed only by their holder's extensions. Like the
 * elections' statements ({@link JdbcLeaseRepository}), every time comparison is made in
 * SQL on the database clock, in epoch milliseconds, and every statement has a query
 * timeout and a network timeout, both from the statement timeout.
 *
 * <p>
 * A lock has a fence row, as an election has: its fenced transactions lock that row, and
 * every change of holder (a take, an operator's release) writes it atomically with the
 * lease row, so that it waits for them (I5); on PostgreSQL a take skips a lock whose
 * fence row is held instead of waiting. A take is one statement on both rows that answers
 * the new term (H2: a transaction), which on MySQL and MariaDB follows a read that waits
 * a bounded time for the fenced runs of an expired lock; each reaches the fence row only
 * once the lease row has expired, so a try of a held lock costs one statement and never
 * waits for its holder's fenced runs. Extensions and the holder's own release write only
 * the lease row, so they never wait for fenced work (I9). Fenced work runs on the
 * application's transaction manager, so that the application's own {@code JdbcTemplate}
 * joins the fenced transaction.
 *
 * <p>
 * On a MariaDB Galera node (asked once, at the first statement that needs it), the insert
 * of a new lock row records the cluster's identity, and the read of the locks is causal.
 */
public class JdbcLockRepository implements LockRepository {

	private final JdbcTemplate jdbc;

	private final SqlDialect dialect;

	/** Transactions on the locks' data source, for an operator's release. */
	private final PlatformTransactionManager releases;

	/** Runs fenced work in the application's transactions. */
	private final FencedTransactionTemplate fencedTransactions;

	/** The statements for one server. */
	private final ServerLockStatements singleServer;

	/**
	 * The statements for a MariaDB Galera cluster; {@code null} where the platform has
	 * none.
	 */
	private final @Nullable ServerLockStatements galeraCluster;

	/**
	 * The statements for the server the data source reaches, chosen at the first
	 * statement that needs them; {@code null} before.
	 */
	private volatile @Nullable ServerLockStatements statements;

	/**
	 * The take-over of an expired lock and the write of its fence row in one statement
	 * that answers the new term, where the database has one: an update of both rows on
	 * MySQL and MariaDB, a data-modifying {@code WITH} on PostgreSQL; {@code null} on H2.
	 */
	private final @Nullable String takeLockAndFence;

	/**
	 * MySQL and MariaDB: the read before a take that waits, a bounded time, for the
	 * fenced runs of a lock that has expired; {@code null} elsewhere.
	 */
	private final @Nullable String awaitFencedRuns;

	/**
	 * The take-over of an expired lock's row alone, followed by the write of its fence
	 * row (H2).
	 */
	private final String takeLock;

	private final String lockTerm;

	private final String extendLock;

	private final String releaseLock;

	/** Extends listed locks, up to the open list of their names. */
	private final String extendLocks;

	private final String forceRelease;

	private final String findTerm;

	/**
	 * The fence statement of the dialect, on the lock's fence row, with named parameters.
	 */
	private final String lockFence;

	/**
	 * Copies a lock's holder and term to its fence row, in the transaction that changed
	 * them.
	 */
	private final String writeFence;

	/**
	 * Inserts a lock's fence row where it is missing, where takes skip held fence rows.
	 */
	private final @Nullable String addMissingFence;

	/** The read that chooses a lock's permit to try. */
	private final PermitStatements permits;

	/** Locks whose fence row this repository has made sure of. */
	private final Set<String> fenced = ConcurrentHashMap.newKeySet();

	/**
	 * Locks whose row this repository has seen exist: a try that takes nothing creates no
	 * row.
	 */
	private final Set<String> seen = ConcurrentHashMap.newKeySet();

	/**
	 * Create a repository.
	 * @param lockDataSource data source for the lock statements
	 * @param transactionManager the application's transaction manager for fenced work;
	 * must manage {@code applicationDataSource}
	 * @param applicationDataSource the data source fenced work writes to
	 * @param dialect SQL dialect
	 * @param tables table names
	 * @param statementTimeout limit of every lock statement
	 */
	public JdbcLockRepository(DataSource lockDataSource, PlatformTransactionManager transactionManager,
			DataSource applicationDataSource, SqlDialect dialect, LeaseTables tables, Duration statementTimeout) {
		Objects.requireNonNull(lockDataSource, "lockDataSource must not be null");
		Objects.requireNonNull(statementTimeout, "statementTimeout must not be null");
		this.dialect = Objects.requireNonNull(dialect, "dialect must not be null");
		this.jdbc = NetworkTimeoutDataSource.jdbcTemplate(lockDataSource, statementTimeout);
		this.releases = new DataSourceTransactionManager(Objects.requireNonNull(this.jdbc.getDataSource()));
		this.fencedTransactions = new FencedTransactionTemplate(
				Objects.requireNonNull(transactionManager, "transactionManager must not be null"),
				applicationDataSource, dialect, tables);
		String lease = tables.leaseTable();
		String fence = tables.fenceTable();
		String now = dialect.now();
		this.singleServer = ServerLockStatements.of(dialect, lease, dialect.serverIdentity(), "");
		String clusterIdentity = dialect.galeraIdentity();
		String causalRead = dialect.causalRead();
		this.galeraCluster = (clusterIdentity != null && causalRead != null)
				? ServerLockStatements.of(dialect, lease, clusterIdentity, causalRead) : null;
		// A lock is free once it has expired; release shortens the expiry, keeping the
		// holder for diagnosis. The version changes with every write, as for elections.
		String skipFencedLock = dialect.skipFencedLock(fence);
		String newTerm = LeaseRows.newTerm(now, dialect.serverIdentity());
		this.takeLock = "UPDATE " + lease + " SET leader_id = ?, " + newTerm
				+ " WHERE election_name = ? AND expires_at <= " + now;
		this.takeLockAndFence = takeLockAndFence(dialect, lease, fence, newTerm, skipFencedLock);
		this.awaitFencedRuns = (dialect == SqlDialect.MYSQL)
				? awaitFencedRuns(lease, fence, now, statementTimeout.dividedBy(2)) : null;
		this.lockTerm = "SELECT term FROM " + lease + " WHERE election_name = ? AND leader_id = ? AND expires_at > "
				+ now;
		// renewed_at, which nobody renews on a lock row, is the time of its last
		// extension (its acquisition until then): a release counts an extension's
		// atLeastFor from it. yielded_by marks a released acquisition (the next take
		// clears it), so that no extension revives it while its atLeastFor keeps it
		// taken.
		String heldByTerm = " WHERE election_name = ? AND leader_id = ? AND term = ? AND expires_at > " + now;
		this.extendLock = "UPDATE " + lease + " SET expires_at = " + now + " + ?, renewed_at = " + now
				+ ", version = version + 1" + heldByTerm + " AND yielded_by IS NULL";
		// The keep-alive's batch: each lock by key (the list of names gives the key
		// ranges, as for the renewal of leases), each checked with its term.
		this.extendLocks = "UPDATE " + dialect.byKey(lease) + " SET expires_at = " + now + " + ?, renewed_at = " + now
				+ ", version = version + 1 WHERE leader_id = ? AND expires_at > " + now
				+ " AND yielded_by IS NULL AND election_name IN (";
		// A time after now counts as now: after the database clock stepped back, the
		// acquisition and the extension lie in the clock's future, and atLeastFor counted
		// from them kept the lock taken for as long as the step.
		this.releaseLock = "UPDATE " + lease + " SET expires_at = LEAST(expires_at, GREATEST(LEAST(acquired_at, " + now
				+ ") + ?, LEAST(renewed_at, " + now + ") + ?, " + now + ")), yielded_by = leader_id,"
				+ " version = version + 1" + heldByTerm;
		// Fenced runs lock the lock's fence row, as those of an election do: a change of
		// holder (take, operator's release) writes it and so waits for them (I5), while
		// extensions, the keep-alive and the holder's release write only the lease row
		// (I9).
		this.lockFence = dialect.fence(fence, lease, tables.nodesTable());
		this.writeFence = dialect.writeFence(fence, lease);
		// A take that skips a held fence row needs the row: locks taken before fence rows
		// existed for locks get theirs at this node's first take.
		this.addMissingFence = (skipFencedLock != null) ? "INSERT INTO " + fence
				+ " (election_name, leader_id, term) SELECT election_name, leader_id, term FROM " + lease
				+ " WHERE election_name = ?" + dialect.ignoreDuplicateKeys("election_name") : null;
		// An operator's release: a new term, so that the holder's fenced work is refused.
		this.forceRelease = "UPDATE " + lease + " SET leader_id = NULL, term = GREATEST(term + 1, " + now
				+ "), version = version + 1, expires_at = " + now + " WHERE election_name = ?";
		this.findTerm = "SELECT term FROM " + lease + " WHERE election_name = ?";
		this.permits = new PermitStatements(dialect, tables);
	}

	/**
	 * Create a repository whose lock statements and fenced work share one data source.
	 * @param dataSource the data source
	 * @param dialect SQL dialect
	 * @param tables table names
	 * @param statementTimeout limit of every lock statement
	 */
	public JdbcLockRepository(DataSource dataSource, SqlDialect dialect, LeaseTables tables,
			Duration statementTimeout) {
		this(dataSource, new DataSourceTransactionManager(dataSource), dataSource, dialect, tables, statementTimeout);
	}

	/**
	 * @return the dialect in use
	 */
	public SqlDialect dialect() {
		return this.dialect;
	}

	/**
	 * The statements for the server that the data source reaches, asked of it once: a
	 * MariaDB Galera node gets the cluster's.
	 */
	private ServerLockStatements statements() {
		ServerLockStatements statements = this.statements;
		if (statements == null) {
			statements = ServerKind.choose(this.jdbc, this.dialect, this.singleServer, this.galeraCluster);
			this.statements = statements;
		}
		return statements;
	}

	/**
	 * Take a lock: one conditional statement on the row of the lock and its fence row (on
	 * MySQL and MariaDB after a read that waits a bounded time for the fenced runs of an
	 * expired lock; on H2 a transaction of three). The row is created on first use, held
	 * by the node that creates it: until this repository has seen the row exist, a try
	 * that takes nothing also tries to insert it.
	 */
	@Override
	public OptionalLong tryLock(String key, String nodeId, Duration atMostFor) {
		return OutsideCallerTransaction.run(() -> {
			long millis = atMostFor.toMillis();
			ensureFence(key);
			OptionalLong taken = take(key, nodeId, millis);
			if (taken.isPresent() || this.seen.contains(key)) {
				this.seen.add(key);
				return taken;
			}
			try {
				changeHolder(key, () -> this.jdbc.update(statements().create(), key, nodeId, millis));
			}
			catch (DuplicateKeyException ex) {
				this.seen.add(key);
				return OptionalLong.empty();
			}
			this.seen.add(key);
			// The caller lets no other try of this lock by this node run meanwhile, so a
			// row held by this node is this acquisition's, unless it has expired already.
			List<Long> terms = this.jdbc.queryForList(this.lockTerm, Long.class, key, nodeId);
			return terms.isEmpty() ? OptionalLong.empty() : OptionalLong.of(terms.get(0));
		});
	}

	/**
	 * Take an expired lock and write its fence row with the new holder and term,
	 * atomically: the take waits for (MySQL, MariaDB, H2) or skips (PostgreSQL) a fenced
	 * run of the previous holder in flight, and the lock's row stays as it was until then
	 * (I5). A lock that has not expired is left alone without a wait for its holder's
	 * fenced runs, as the fence row is reached only once the lease row has expired.
	 * @return the new term, or empty if the lock did not expire or has no row
	 */
	private OptionalLong take(String key, String nodeId, long millis) {
		String takeLockAndFence = this.takeLockAndFence;
		if (takeLockAndFence == null) {
			return inTransaction(this.releases, () -> {
				if (this.jdbc.update(this.takeLock, nodeId, millis, key) != 1) {
					return OptionalLong.empty();
				}
				this.jdbc.update(this.writeFence, key);
				return OptionalLong.of(this.jdbc.queryForObject(this.findTerm, Long.class, key));
			});
		}
		if (this.dialect == SqlDialect.POSTGRESQL) {
			List<Long> terms = this.jdbc.queryForList(takeLockAndFence, Long.class, nodeId, millis, key, key);
			return terms.isEmpty() ? OptionalLong.empty() : OptionalLong.of(terms.get(0));
		}
		// MySQL and MariaDB: first wait for the fenced runs of an expired lock, for a
		// bounded time that the server enforces. The take alone would wait for them as
		// long as they last, and in autocommit mode the server would then carry out a
		// take whose client gave up (a socket timeout before the query timeout's cancel,
		// or none at all where the query timeout rounds up to a whole second), for a node
		// that believes nothing. A lock that has not expired is answered here, in this
		// one statement.
		List<Integer> expired = this.jdbc.query(Objects.requireNonNull(this.awaitFencedRuns), (rs, row) -> rs.getInt(1),
				key);
		if (expired.isEmpty() || expired.get(0) != 1) {
			return OptionalLong.empty();
		}
		// The new term comes back in the answer as the statement's LAST_INSERT_ID,
		// without a statement to read it.
		GeneratedKeyHolder keys = new GeneratedKeyHolder();
		int changed = this.jdbc.update((connection) -> {
			PreparedStatement statement = connection.prepareStatement(takeLockAndFence,
					Statement.RETURN_GENERATED_KEYS);
			statement.setString(1, nodeId);
			statement.setLong(2, millis);
			statement.setString(3, nodeId);
			statement.setString(4, key);
			return statement;
		}, keys);
		if (changed == 0) {
			return OptionalLong.empty();
		}
		if (changed == 1) {
			// The lock's row only: a lock taken before locks had fence rows gets one, as
			// nothing can have locked a row that did not exist.
			this.jdbc.update(this.writeFence, key);
		}
		return OptionalLong.of(((Number) keys.getKeyList().get(0).values().iterator().next()).longValue());
	}

	/**
	 * MySQL's and MariaDB's read that answers whether a lock has expired (1) or not (0),
	 * and only when it has, locks its fence row, and so waits for its fenced runs in
	 * flight; the server ends the wait after {@code bound} (MAX_EXECUTION_TIME on MySQL,
	 * max_statement_time on MariaDB, as {@link SqlDialect#boundFenceWait} does). The
	 * fence row is joined on a key that is null until the lease row has expired, and one
	 * of its columns is read: MariaDB drops an outer-joined table whose columns a query
	 * does not use (table elimination), and its lock with it.
	 */
	private static String awaitFencedRuns(String lease, String fence, String now, Duration bound) {
		long millis = Math.max(1, bound.toMillis());
		return "/*M! SET STATEMENT max_statement_time = " + BigDecimal.valueOf(millis, 3).toPlainString()
				+ " FOR */ SELECT /*+ MAX_EXECUTION_TIME(" + millis + ") */ CASE WHEN l.expires_at <= " + now
				+ " THEN 1 ELSE 0 END, f.term FROM " + lease + " l LEFT JOIN " + fence
				+ " f ON f.election_name = CASE WHEN l.expires_at <= " + now
				+ " THEN l.election_name END WHERE l.election_name = ? FOR UPDATE";
	}

	/**
	 * The statement that takes an expired lock and writes its fence row at once,
	 * answering the new term, or {@code null} where the database has none (H2).
	 * @param newTerm the assignments of a new term ({@link LeaseRows#newTerm}), with one
	 * parameter, the lock's duration
	 * @param skipFencedLock the condition that skips a held fence row (PostgreSQL)
	 */
	private static @Nullable String takeLockAndFence(SqlDialect dialect, String lease, String fence, String newTerm,
			@Nullable String skipFencedLock) {
		String now = dialect.now();
		return switch (dialect) {
			// Parameters: the node, the duration, the node, the key. The fence row is
			// joined only once the lease row has expired, so a try of a held lock never
			// reads, and so never waits for, the fence row that its holder's fenced run
			// holds. The order in which MySQL assigns the two rows' columns is not
			// defined, so neither row's values are read from the other's: both compute
			// the new term from their own (equal) old term and the statement's one clock
			// reading.
			case MYSQL -> {
				String term = "term = GREATEST(term + 1, " + now + ")";
				if (!newTerm.startsWith(term)) {
					throw new IllegalStateException("The assignments of a new term no longer start with " + term);
				}
				yield "UPDATE " + lease + " l LEFT JOIN " + fence + " f ON f.election_name = CASE WHEN l.expires_at <= "
						+ now
						+ " THEN l.election_name END SET l.leader_id = ?, l.term = LAST_INSERT_ID(GREATEST(l.term + 1, "
						+ now + "))" + newTerm.substring(term.length())
						+ ", f.leader_id = ?, f.term = GREATEST(f.term + 1, " + now
						+ ") WHERE l.election_name = ? AND l.expires_at <= " + now;
			}
			// Parameters: the node, the duration, the key, the key. The fence row, locked
			// by the take's condition, gets the holder and term the take answers.
			case POSTGRESQL -> "WITH taken AS (UPDATE " + lease + " SET leader_id = ?, " + newTerm
					+ " WHERE election_name = ? AND expires_at <= " + now + skipFencedLock
					+ " RETURNING election_name, leader_id, term) UPDATE " + fence
					+ " f SET leader_id = taken.leader_id, term = taken.term FROM taken"
					+ " WHERE f.election_name = taken.election_name RETURNING taken.term";
			case H2 -> null;
		};
	}

	/**
	 * Which of the locks are free: one read by key of those held, whatever their number.
	 */
	@Override
	public List<String> freeLocks(List<String> keys) {
		if (keys.isEmpty()) {
			return List.of();
		}
		return OutsideCallerTransaction.run(() -> {
			Set<String> held = new HashSet<>(
					this.jdbc.queryForList(this.permits.heldAmong(keys.size()), String.class, keys.toArray()));
			return keys.stream().filter((key) -> !held.contains(key)).toList();
		});
	}

	/**
	 * Extend a lock: one conditional statement on the row of the lock, by key. It does
	 * not wait for the lock's fenced runs, which hold its fence row.
	 */
	@Override
	public boolean extendLock(String key, String nodeId, long term, Duration atMostFor) {
		return OutsideCallerTransaction
			.run(() -> this.jdbc.update(this.extendLock, atMostFor.toMillis(), key, nodeId, term) == 1);
	}

	/**
	 * Extend the listed locks in one statement per chunk of the drivers' parameter
	 * limits, by key, without waiting for their fenced runs.
	 */
	@Override
	public int extendLocks(String nodeId, Map<String, Long> heldTerms, Duration atMostFor) {
		return OutsideCallerTransaction.run(() -> LeaseRows.updateByKeyAndTerm(this.jdbc, this.extendLocks, heldTerms,
				atMostFor.toMillis(), nodeId));
	}

	@Override
	public boolean releaseLock(String key, String nodeId, long term, Duration atLeastFor,
			Duration atLeastForAfterExtension) {
		return OutsideCallerTransaction.run(() -> this.jdbc.update(this.releaseLock, atLeastFor.toMillis(),
				atLeastForAfterExtension.toMillis(), key, nodeId, term) == 1);
	}

	@Override
	public List<LockState> findLocks() {
		return OutsideCallerTransaction.run(() -> this.jdbc.query(statements().findLocks(), (rs, row) -> {
			LeaseState lease = LeaseRows.map(rs);
			return new LockState(lease.election().substring(ClusterLocks.KEY_PREFIX.length()), lease.leaderId(),
					lease.term(), lease.acquiredAt(), lease.expiresAt(), !lease.expired(), lease.databaseTime());
		}));
	}

	@Override
	public OptionalLong forceRelease(String key) {
		// In one transaction: the row stays locked until the term is read back.
		return OutsideCallerTransaction.run(() -> inTransaction(this.releases, () -> {
			if (this.jdbc.update(this.forceRelease, key) != 1) {
				return OptionalLong.empty();
			}
			this.jdbc.update(this.writeFence, key);
			return OptionalLong.of(this.jdbc.queryForObject(this.findTerm, Long.class, key));
		}));
	}

	/**
	 * Make sure that a lock has its fence row, where takes skip held fence rows.
	 * @param key the lock's key
	 * @return {@code true}
	 */
	private boolean ensureFence(String key) {
		String addMissingFence = this.addMissingFence;
		if (addMissingFence != null && this.fenced.add(key)) {
			this.jdbc.update(addMissingFence, key);
		}
		return true;
	}

	/**
	 * Change the holder of a lock and, in the same transaction, its fence row, which
	 * waits for the fenced runs of the previous holder (I5).
	 * @param key the lock's key
	 * @param change the statement on the lease row, returning the rows it changed
	 * @return whether the lease row changed
	 */
	private boolean changeHolder(String key, IntSupplier change) {
		return inTransaction(this.releases, () -> {
			if (change.getAsInt() != 1) {
				return false;
			}
			this.jdbc.update(this.writeFence, key);
			return true;
		});
	}

	@Override
	public <T extends @Nullable Object> T runLockFenced(String key, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		return this.fencedTransactions.run(this.lockFence, true, key, nodeId, term, maxHoldTime,
				() -> new LockNotHeldException(key, term, "another node took it, or it expired or was released"),
				callback);
	}

	/**
	 * The lock statements whose text depends on the kind of server that answers: the
	 * insert of a new row records the server's identity, and on a MariaDB Galera cluster
	 * the read of the locks is causal.
	 */
	private record ServerLockStatements(String create, String findLocks) {

		static ServerLockStatements of(SqlDialect dialect, String lease, String server, String read) {
			return new ServerLockStatements(LeaseRows.insert(dialect, lease, server),
					read + LeaseRows.select(dialect, lease, server) + " WHERE election_name LIKE '"
							+ ClusterLocks.KEY_PREFIX + "%' ORDER BY election_name");
		}

	}

}
