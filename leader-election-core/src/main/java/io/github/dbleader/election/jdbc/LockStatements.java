package io.github.dbleader.election.jdbc;

import java.math.BigDecimal;
import java.time.Duration;

import io.github.dbleader.election.lock.ClusterLocks;
import org.jspecify.annotations.Nullable;

/**
 * Every statement that a node sends for its cluster locks ({@link JdbcLockRepository}),
 * rendered once for one kind of server, as {@link LeaseStatements} renders the elections'
 * and holds these ({@link LeaseStatements#locks}). A lock is a row of the lease table
 * named with the prefix {@value ClusterLocks#KEY_PREFIX}, with a fence row; its fenced
 * runs send the elections' fence ({@link LeaseStatements#fence}), and its changes of
 * holder write the fence row with the elections' statement
 * ({@link LeaseStatements#writeFence}). Each statement is one field;
 * {@code docs/reference/statements.md} lists them, generated from this class
 * ({@code StatementsReferenceTests}).
 *
 * <p>
 * Parameters are positional ({@code ?}); the comments name them in order. Time is the
 * database's, in epoch milliseconds (I1).
 *
 * <p>
 * On a MariaDB Galera node the insert of a new lock row records the cluster's identity,
 * and the read of the locks is causal; the other statements are the same on every kind of
 * server of a platform.
 */
final class LockStatements {

	// ---- Cluster locks

	/**
	 * Creates a lock's row, held by the node that creates it; parameters: the lock's key,
	 * the node id and the lock's duration.
	 */
	final String create;

	/**
	 * The term of a lock that a node holds and that has not expired; parameters: the
	 * lock's key and the node id.
	 */
	final String lockTerm;

	/**
	 * MySQL and MariaDB: the read before a take that answers whether a lock has expired
	 * (1) or not (0), and only when it has, locks its fence row, and so waits for its
	 * fenced runs in flight, for at most half the statement timeout, which the server
	 * enforces; parameter: the lock's key. {@code null} elsewhere.
	 */
	final @Nullable String awaitFencedRuns;

	/**
	 * Takes over an expired lock and writes its fence row in one statement that answers
	 * the new term: on MySQL and MariaDB an update of both rows (the term as the
	 * statement's {@code LAST_INSERT_ID}; parameters: the node id, the duration, the node
	 * id and the lock's key), on PostgreSQL a data-modifying {@code WITH} that skips a
	 * lock whose fence row a fenced run holds (parameters: the node id, the duration, the
	 * lock's key and the lock's key again). {@code null} on H2, which sends
	 * {@link #takeLock}.
	 */
	final @Nullable String takeLockAndFence;

	/**
	 * Takes over an expired lock's row alone, in a transaction that then writes its fence
	 * row (H2); parameters: the node id, the duration and the lock's key.
	 */
	final String takeLock;

	/**
	 * Inserts a lock's fence row from its lease row where it is missing, where takes skip
	 * held fence rows (PostgreSQL); parameter: the lock's key. {@code null} elsewhere.
	 */
	final @Nullable String addMissingFence;

	/**
	 * Extends a lock that a node holds with a term and has not released; parameters: the
	 * duration, the lock's key, the node id and the term.
	 */
	final String extendLock;

	/**
	 * Extends the listed locks that a node holds with their terms and has not released;
	 * parameters: the duration, the node id, the locks' keys, then a (key, term) pair
	 * each.
	 */
	final SqlTemplate extendLocks;

	/**
	 * Releases a lock that a node holds with a term: it expires once the acquisition's
	 * {@code atLeastFor} and the last extension's have passed; parameters: the
	 * acquisition's {@code atLeastFor}, the extension's, the lock's key, the node id and
	 * the term.
	 */
	final String releaseLock;

	/**
	 * An operator's release of a lock: no holder, and a new term that refuses the
	 * holder's fenced work; parameter: the lock's key.
	 */
	final String forceRelease;

	/** The term of a lock; parameter: the lock's key. */
	final String findTerm;

	/** Every lock with its holder, read causally on a MariaDB Galera node. */
	final String findLocks;

	/**
	 * Which of listed lock rows are held, by key (the choice of a permit to try,
	 * {@code ClusterLocks.tryPermit}): a plain read that locks nothing, so it never waits
	 * for a fenced run or a take under way; missing and expired rows are the free ones;
	 * parameters: the keys.
	 */
	final SqlTemplate heldAmong;

	/**
	 * Render the statements.
	 * @param dialect the platform
	 * @param server SQL expression of the identity of the server that answers
	 * @param read prefix that makes a read causal; empty where reads are plain
	 * @param tables the tables
	 * @param statementTimeout the limit of every statement
	 */
	LockStatements(SqlDialect dialect, String server, String read, LeaseTables tables, Duration statementTimeout) {
		String lease = tables.leaseTable();
		String fence = tables.fenceTable();
		String now = dialect.now();
		this.create = LeaseRows.insert(dialect, lease, server);
		this.findLocks = read + LeaseRows.select(dialect, lease, server) + " WHERE election_name LIKE '"
				+ ClusterLocks.KEY_PREFIX + "%' ORDER BY election_name";
		// A lock is free once it has expired; release shortens the expiry, keeping the
		// holder for diagnosis. The version changes with every write, as for elections.
		// A take records the single server's identity on every kind of server.
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
		// ranges, as for the renewal of leases; a list of pairs alone is no range on
		// MariaDB), each checked with its term.
		this.extendLocks = new SqlTemplate(
				"UPDATE " + dialect.byKey(lease) + " SET expires_at = " + now + " + ?, renewed_at = " + now
						+ ", version = version + 1 WHERE leader_id = ? AND expires_at > " + now
						+ " AND yielded_by IS NULL AND election_name IN (" + SqlTemplate.NAMES.marker()
						+ ") AND (election_name, term) IN (" + SqlTemplate.PAIRS.marker() + ")",
				SqlTemplate.NAMES, SqlTemplate.PAIRS);
		// A time after now counts as now: after the database clock stepped back, the
		// acquisition and the extension lie in the clock's future, and atLeastFor counted
		// from them kept the lock taken for as long as the step.
		this.releaseLock = "UPDATE " + lease + " SET expires_at = LEAST(expires_at, GREATEST(LEAST(acquired_at, " + now
				+ ") + ?, LEAST(renewed_at, " + now + ") + ?, " + now + ")), yielded_by = leader_id,"
				+ " version = version + 1" + heldByTerm;
		// Fenced runs lock the lock's fence row, as those of an election do: a change of
		// holder (take, operator's release) writes it and so waits for them (I5), while
		// extensions, the keep-alive and the holder's release write only the lease row
		// (I9). A take that skips a held fence row needs the row: locks taken before
		// fence rows existed for locks get theirs at this node's first take.
		this.addMissingFence = (skipFencedLock != null) ? "INSERT INTO " + fence
				+ " (election_name, leader_id, term) SELECT election_name, leader_id, term FROM " + lease
				+ " WHERE election_name = ?" + dialect.ignoreDuplicateKeys("election_name") : null;
		// An operator's release: a new term, so that the holder's fenced work is refused.
		this.forceRelease = "UPDATE " + lease + " SET leader_id = NULL, term = GREATEST(term + 1, " + now
				+ "), version = version + 1, expires_at = " + now + " WHERE election_name = ?";
		this.findTerm = "SELECT term FROM " + lease + " WHERE election_name = ?";
		this.heldAmong = new SqlTemplate("SELECT election_name FROM " + dialect.byKey(lease) + " WHERE expires_at > "
				+ now + " AND election_name IN (" + SqlTemplate.NAMES.marker() + ")", SqlTemplate.NAMES);
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
			// The fence row is joined only once the lease row has expired, so a try of a
			// held lock never reads, and so never waits for, the fence row that its
			// holder's fenced run holds. The order in which MySQL assigns the two rows'
			// columns is not defined, so neither row's values are read from the other's:
			// both compute the new term from their own (equal) old term and the
			// statement's one clock reading.
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
			// The fence row, locked by the take's condition, gets the holder and term the
			// take answers.
			case POSTGRESQL -> "WITH taken AS (UPDATE " + lease + " SET leader_id = ?, " + newTerm
					+ " WHERE election_name = ? AND expires_at <= " + now + skipFencedLock
					+ " RETURNING election_name, leader_id, term) UPDATE " + fence
					+ " f SET leader_id = taken.leader_id, term = taken.term FROM taken"
					+ " WHERE f.election_name = taken.election_name RETURNING taken.term";
			case H2 -> null;
		};
	}

}
