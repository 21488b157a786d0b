package io.github.dbleader.election.jdbc;

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

import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockState;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;

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
 *
 * <p>
 * What it sends is {@link LockStatements}'s (and the elections' fence statements of
 * {@link LeaseStatements}), through a {@link JdbcStore}: its data sources, statement
 * timeout and lazy choice of platform and kind of server are the store's.
 */
public class JdbcLockRepository implements LockRepository {

	private final JdbcStore store;

	/** Locks whose fence row this repository has made sure of. */
	private final Set<String> fenced = ConcurrentHashMap.newKeySet();

	/**
	 * Locks whose row this repository has seen exist: a try that takes nothing creates no
	 * row.
	 */
	private final Set<String> seen = ConcurrentHashMap.newKeySet();

	/**
	 * Create a repository.
	 * @param store where its statements go; its application transactions run the fenced
	 * work
	 */
	public JdbcLockRepository(JdbcStore store) {
		this.store = Objects.requireNonNull(store, "store must not be null");
	}

	/**
	 * @return the dialect in use
	 */
	public SqlDialect dialect() {
		return this.store.dialect();
	}

	/**
	 * The statements that are the same on every kind of server of the platform.
	 */
	private LockStatements statements() {
		return this.store.platformStatements().locks;
	}

	/**
	 * The statements for the server that the data source reaches, asked of it once: a
	 * MariaDB Galera node gets the cluster's.
	 */
	private LockStatements serverStatements() {
		return this.store.serverStatements().locks;
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
				changeHolder(key, () -> this.store.jdbc().update(serverStatements().create, key, nodeId, millis));
			}
			catch (DuplicateKeyException ex) {
				this.seen.add(key);
				return OptionalLong.empty();
			}
			this.seen.add(key);
			// The caller lets no other try of this lock by this node run meanwhile, so a
			// row held by this node is this acquisition's, unless it has expired already.
			List<Long> terms = this.store.jdbc().queryForList(statements().lockTerm, Long.class, key, nodeId);
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
		LockStatements statements = statements();
		JdbcTemplate jdbc = this.store.jdbc();
		String takeLockAndFence = statements.takeLockAndFence;
		if (takeLockAndFence == null) {
			return changedHolder(key, () -> jdbc.update(statements.takeLock, nodeId, millis, key));
		}
		if (this.store.dialect() == SqlDialect.POSTGRESQL) {
			List<Long> terms = jdbc.queryForList(takeLockAndFence, Long.class, nodeId, millis, key, key);
			return terms.isEmpty() ? OptionalLong.empty() : OptionalLong.of(terms.get(0));
		}
		// MySQL and MariaDB: first wait for the fenced runs of an expired lock, for a
		// bounded time that the server enforces. The take alone would wait for them as
		// long as they last, and in autocommit mode the server would then carry out a
		// take whose client gave up (a socket timeout before the query timeout's cancel,
		// or none at all where the query timeout rounds up to a whole second), for a node
		// that believes nothing. A lock that has not expired is answered here, in this
		// one statement.
		List<Integer> expired = jdbc.query(Objects.requireNonNull(statements.awaitFencedRuns),
				(rs, row) -> rs.getInt(1), key);
		if (expired.isEmpty() || expired.get(0) != 1) {
			return OptionalLong.empty();
		}
		// The new term comes back in the answer as the statement's LAST_INSERT_ID,
		// without a statement to read it.
		GeneratedKeyHolder keys = new GeneratedKeyHolder();
		int changed = jdbc.update((connection) -> {
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
			writeFence(key);
		}
		return OptionalLong.of(((Number) keys.getKeyList().get(0).values().iterator().next()).longValue());
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
			Set<String> held = new HashSet<>(this.store.jdbc()
				.queryForList(statements().heldAmong.render(keys.size()), String.class, keys.toArray()));
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
			.run(() -> this.store.jdbc().update(statements().extendLock, atMostFor.toMillis(), key, nodeId, term) == 1);
	}

	/**
	 * Extend the listed locks in one statement per chunk of the drivers' parameter
	 * limits, by key, without waiting for their fenced runs.
	 */
	@Override
	public int extendLocks(String nodeId, Map<String, Long> heldTerms, Duration atMostFor) {
		return OutsideCallerTransaction.run(() -> LeaseRows.updateByKeyAndTerm(this.store.jdbc(),
				statements().extendLocks, heldTerms, atMostFor.toMillis(), nodeId));
	}

	@Override
	public boolean releaseLock(String key, String nodeId, long term, Duration atLeastFor,
			Duration atLeastForAfterExtension) {
		return OutsideCallerTransaction.run(() -> this.store.jdbc()
			.update(statements().releaseLock, atLeastFor.toMillis(), atLeastForAfterExtension.toMillis(), key, nodeId,
					term) == 1);
	}

	@Override
	public List<LockState> findLocks() {
		return OutsideCallerTransaction.run(() -> this.store.jdbc().query(serverStatements().findLocks, (rs, row) -> {
			LeaseState lease = LeaseRows.map(rs);
			return new LockState(lease.election().substring(ClusterLocks.KEY_PREFIX.length()), lease.leaderId(),
					lease.term(), lease.acquiredAt(), lease.expiresAt(), !lease.expired(), lease.databaseTime());
		}));
	}

	@Override
	public OptionalLong forceRelease(String key) {
		return OutsideCallerTransaction
			.run(() -> changedHolder(key, () -> this.store.jdbc().update(statements().forceRelease, key)));
	}

	/**
	 * Make sure that a lock has its fence row, where takes skip held fence rows.
	 * @param key the lock's key
	 * @return {@code true}
	 */
	private boolean ensureFence(String key) {
		String addMissingFence = statements().addMissingFence;
		if (addMissingFence != null && this.fenced.add(key)) {
			this.store.jdbc().update(addMissingFence, key);
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
		return inTransaction(this.store.transactions(), () -> {
			if (change.getAsInt() != 1) {
				return false;
			}
			writeFence(key);
			return true;
		});
	}

	/**
	 * Change the holder of a lock as {@link #changeHolder} does, and read its new term in
	 * the same transaction, while the row stays locked.
	 * @param key the lock's key
	 * @param change the statement on the lease row, returning the rows it changed
	 * @return the new term, or empty if the lease row did not change
	 */
	private OptionalLong changedHolder(String key, IntSupplier change) {
		return inTransaction(this.store.transactions(), () -> {
			if (change.getAsInt() != 1) {
				return OptionalLong.empty();
			}
			writeFence(key);
			return OptionalLong.of(this.store.jdbc().queryForObject(statements().findTerm, Long.class, key));
		});
	}

	/** Copy a lock's holder and term to its fence row, as the elections' changes do. */
	private void writeFence(String key) {
		this.store.jdbc().update(this.store.platformStatements().writeFence, key);
	}

	@Override
	public <T extends @Nullable Object> T runLockFenced(String key, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		return this.store.fencedTransactions()
			.run(this.store.platformStatements().fence, true, key, nodeId, term, maxHoldTime,
					() -> new LockNotHeldException(key, term, "another node took it, or it expired or was released"),
					callback);
	}

}
