package io.github.dbleader.election.jdbc;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What differs between databases in the lease statements: the database clock in epoch
 * milliseconds (UTC, so session time zones and daylight saving never matter), the share
 * lock of the fence, and how the server drops a stalled fenced transaction.
 */
public enum SqlDialect {

	/**
	 * MySQL 8.0+ and MariaDB 10.6+. {@code UTC_TIMESTAMP(6)} is evaluated once per
	 * statement and ignores the session time zone.
	 */
	MYSQL("mysql", "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
			"CONCAT(@@hostname, ':', @@port, ':', @@server_id)") {

		@Override
		String fence(String fence, String lease, String nodes) {
			// A locking SELECT: its subquery on the lease row is a plain read. (A SET
			// whose value came from this read would save the separate limit, but InnoDB
			// share-locks every row that a statement other than a SELECT reads, the lease
			// row too, which would stall this node's renewals behind its fenced work.)
			return "SELECT CASE WHEN " + holds(lease, nodes, BINARY_NODE) + " THEN 1 ELSE 0 END AS held FROM " + fence
					+ " f WHERE f.election_name = :election" + " LOCK IN SHARE MODE";
		}

		@Override
		String limitFencedSession() {
			// MySQL has no idle-transaction timeout and no SET LOCAL: the session's
			// timeouts drop a holder frozen mid-transaction, which rolls it back and
			// frees the share lock. A SELECT cannot set them.
			return "SET SESSION " + SESSION_LIMITS;
		}

		@Override
		String restoreFencedSession() {
			return "SET SESSION " + SESSION_LIMITS_RESTORED;
		}

		@Override
		String certificationCheck() {
			// Not SELECT @@wsrep_on: MySQL has no such variable and would fail the
			// statement.
			return "SHOW VARIABLES WHERE Variable_name IN ('wsrep_on', 'version')";
		}

		@Override
		String galeraIdentity() {
			// The state UUID names the cluster's history of writes: every node of the
			// cluster has it, a server with other data (an asynchronous replica, a new
			// cluster) has another. Empty where Galera does not run: then the server's
			// own identity.
			return "COALESCE((SELECT CONCAT('galera:', NULLIF(variable_value, '')) FROM information_schema.global_status"
					+ " WHERE variable_name = 'WSREP_CLUSTER_STATE_UUID'), " + serverIdentity() + ")";
		}

		@Override
		String causalRead() {
			// For this statement only; a session setting would also delay the
			// application's reads. In a MariaDB executable comment: drivers (Connector/J)
			// refuse to read a result of a statement that starts with SET.
			return "/*M! SET STATEMENT wsrep_sync_wait = 1 FOR */ ";
		}

		@Override
		String certifyFence(String fence) {
			// Only the fence row, by key: no read of the lease row, whose lock would
			// stall this node's renewals behind its fenced work.
			return "UPDATE " + fence + " SET fenced_runs = fenced_runs + 1 WHERE election_name = :election";
		}

		@Override
		String byKey(String table) {
			// Without it, a list that covers most of a small table is planned as a scan
			// of the whole index, and an UPDATE or DELETE locks every row it reads: it
			// would wait for the rows that fenced work holds (I9).
			return table + " FORCE INDEX (PRIMARY)";
		}

		@Override
		String boundFenceWait(String fence, Duration bound) {
			// An UPDATE takes no time limit on MySQL (its innodb_lock_wait_timeout is
			// whole seconds, and no hint sets it), a locking SELECT does:
			// MAX_EXECUTION_TIME on MySQL; MariaDB ignores the hint and runs the
			// executable comment instead.
			long millis = Math.max(1, bound.toMillis());
			return "/*M! SET STATEMENT max_statement_time = " + BigDecimal.valueOf(millis, 3).toPlainString()
					+ " FOR */ SELECT /*+ MAX_EXECUTION_TIME(" + millis + ") */ election_name FROM " + byKey(fence)
					+ " WHERE election_name = ? FOR UPDATE";
		}

	},

	/**
	 * PostgreSQL 12+. {@code clock_timestamp()} rather than {@code now()}: {@code now()}
	 * is frozen at the start of the transaction, which would make the fence's expiry
	 * check look into the past after waiting for the lock.
	 */
	POSTGRESQL("postgresql", "(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint)",
			"(COALESCE(host(inet_server_addr()), 'local') || ':' || current_setting('port'))") {

		@Override
		String fence(String fence, String lease, String nodes) {
			return "SELECT CASE WHEN " + holds(lease, nodes, ":node") + " THEN 1 ELSE 0 END AS held, " + IDLE_LIMIT
					+ " FROM " + fence + " f WHERE f.election_name = :election FOR SHARE";
		}

		@Override
		String boundFenceWait(String fence, Duration bound) {
			// SET LOCAL: the statements after it in the change's transaction, the write
			// of the fence row among them, end at the limit (SQLSTATE 57014, as a query
			// timeout does).
			return "SELECT set_config('statement_timeout', '" + Math.max(1, bound.toMillis()) + "', true) FROM " + fence
					+ " WHERE election_name = ?";
		}

	},

	/**
	 * H2 2.x. {@code EXTRACT(EPOCH ...)} of a {@code TIMESTAMP WITH TIME ZONE} is UTC;
	 * {@code DATEDIFF} is not an option, as it compares the local times of the session's
	 * time zone and so moves with the zone and with daylight saving. H2 has no
	 * shared-lock read, so the fence takes an exclusive row lock.
	 */
	H2("h2", "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)", "'h2'") {

		@Override
		String fence(String fence, String lease, String nodes) {
			return "SELECT CASE WHEN " + holds(lease, nodes, ":node") + " THEN 1 ELSE 0 END AS held FROM " + fence
					+ " f WHERE f.election_name = :election FOR UPDATE";
		}

	};

	/**
	 * MySQL's session limits of a fenced transaction, with the hold limit
	 * {@code :seconds}: {@code wait_timeout} drops a holder frozen between statements,
	 * and {@code net_write_timeout} one frozen while the server sends it a result (an
	 * active session that no longer reads: the server blocks writing, for 60 s by
	 * default).
	 */
	static final String SESSION_LIMITS = "wait_timeout = :seconds, net_write_timeout = :seconds";

	/**
	 * MySQL's assignments that restore {@link #SESSION_LIMITS} to the server's defaults.
	 */
	static final String SESSION_LIMITS_RESTORED = "wait_timeout = @@GLOBAL.wait_timeout,"
			+ " net_write_timeout = @@GLOBAL.net_write_timeout";

	/** MySQL's node id parameter, compared case-sensitively. */
	private static final String BINARY_NODE = "CONVERT(:node USING utf8mb4) COLLATE utf8mb4_bin";

	/**
	 * PostgreSQL's session limits inside the fence: {@code set_config(..., true)} is
	 * {@code SET LOCAL}, which ends with the transaction, so nothing needs restoring, and
	 * they cost no statement of their own. {@code idle_in_transaction_session_timeout}
	 * drops a holder frozen between statements; {@code tcp_user_timeout} one frozen while
	 * the server sends it a result, whose session is active (blocked writing), which no
	 * statement or idle timeout ends: its socket aborts once its data stays
	 * unacknowledged, or the client's receive window stays shut, for that long (Linux;
	 * ignored on a Unix-domain socket, and logged as unsupported where the server's
	 * platform lacks it).
	 */
	private static final String IDLE_LIMIT = "set_config('idle_in_transaction_session_timeout',"
			+ " CAST(CAST(:seconds AS bigint) * 1000 AS text), true),"
			+ " set_config('tcp_user_timeout', CAST(CAST(:seconds AS bigint) * 1000 AS text), true)";

	private final String platform;

	private final String now;

	private final String serverIdentity;

	SqlDialect(String platform, String now, String serverIdentity) {
		this.platform = platform;
		this.now = now;
		this.serverIdentity = serverIdentity;
	}

	/**
	 * Platform name, as used in {@code schema-<platform>.sql}.
	 * @return the platform
	 */
	public String platform() {
		return this.platform;
	}

	/**
	 * Find the dialect for a platform name or a JDBC database product name.
	 * @param name e.g. {@code mysql}, {@code MariaDB}, {@code PostgreSQL}, {@code H2}
	 * @return the dialect
	 * @throws IllegalArgumentException if the platform is not supported; the message
	 * lists the supported ones
	 */
	public static SqlDialect forName(String name) {
		String normalized = name.trim().toLowerCase(Locale.ROOT);
		if (normalized.equals("mysql") || normalized.equals("mariadb")) {
			return MYSQL;
		}
		if (normalized.equals("postgresql") || normalized.equals("postgres")) {
			return POSTGRESQL;
		}
		if (normalized.equals("h2")) {
			return H2;
		}
		throw new IllegalArgumentException("Unsupported database '" + name
				+ "'; supported platforms are mysql (also for MariaDB), postgresql and h2");
	}

	/**
	 * SQL expression of the database clock in epoch milliseconds (UTC), the clock every
	 * lease decision uses. Handy for timestamps of fenced work that must be comparable
	 * with the lease times.
	 * @return the expression
	 */
	public String currentTimeMillis() {
		return this.now;
	}

	String now() {
		return this.now;
	}

	/**
	 * @return SQL expression that identifies the database server answering
	 */
	String serverIdentity() {
		return this.serverIdentity;
	}

	/**
	 * The fence: one statement, in the fenced transaction, that locks the election's
	 * fence row in share mode (H2: exclusively), checks that node {@code :node} holds
	 * term {@code :term} of election {@code :election} and that the lease has not
	 * expired, and where it can, makes the server end the transaction if its client then
	 * stays idle for {@code :seconds}. It returns one row whose first column is 1 if the
	 * node holds the lease (0 or no row otherwise).
	 * @param fence the fence table
	 * @param lease the lease table
	 * @return the statement with named parameters
	 */
	abstract String fence(String fence, String lease, String nodes);

	/**
	 * Condition, appended to the take-over of a lock, that makes it skip a lock whose
	 * fence row a fenced transaction holds instead of waiting for it, and otherwise locks
	 * that row for the take's transaction, with one parameter, the lock's key;
	 * {@code null} where the take-over waits. On PostgreSQL a take-over that waited past
	 * its timeout would break the connection, and the server would still run it once the
	 * fenced transaction ended, taking the lock for a node that gave up on it.
	 * @param fence the fence table
	 * @return the condition or {@code null}
	 */
	@Nullable String skipFencedLock(String fence) {
		return (this != POSTGRESQL) ? null : " AND election_name IN (SELECT election_name FROM " + fence
				+ " WHERE election_name = ? FOR UPDATE SKIP LOCKED)";
	}

	/**
	 * Query, with the election as its one parameter, that a single-row change of holder
	 * runs in its transaction right before it writes the election's fence row, so that
	 * the server itself ends the change's wait for fenced work (I5) after {@code bound},
	 * and with it the statement: the client's socket timeout would end the wait on the
	 * client alone, and the server would go on with the change until the fence was free,
	 * keeping the lease row locked for as long, so that the batched changes of holder
	 * after it, which skip a busy fence, would wait for the lease row instead.
	 * {@code null} where the database itself ends every wait (H2: its lock timeout, and
	 * its query timeout, which it enforces).
	 * @param fence the fence table
	 * @param bound the longest wait, shorter than the statement timeout
	 * @return the query or {@code null}
	 */
	@Nullable String boundFenceWait(String fence, Duration bound) {
		return null;
	}

	/**
	 * Statement, before the {@link #fence(String, String) fence}, that makes the server
	 * end the transaction if its client stays idle for {@code :seconds}, where the fence
	 * cannot do so itself; {@code null} otherwise. Where it is not {@code null}, a fenced
	 * transaction on a connection in autocommit mode begins and commits with statements
	 * that carry the limit and its restore instead (a session-limited
	 * {@link FencedConnection}).
	 * @return the statement with named parameters, or {@code null}
	 */
	@Nullable String limitFencedSession() {
		return null;
	}

	/**
	 * Statement that undoes the fence's session limit after the transaction ended, before
	 * the connection goes back to the pool, or {@code null} if nothing needs undoing.
	 * @return the statement or {@code null}
	 */
	@Nullable String restoreFencedSession() {
		return null;
	}

	/**
	 * Query whose rows name variables and their values: {@code wsrep_on}, {@code ON} if
	 * the server replicates by certifying write sets (Galera: row locks are local to one
	 * cluster node), and {@code version}, which names MariaDB; or {@code null} if the
	 * platform never certifies. No {@code wsrep_on} row means no.
	 * @return the query or {@code null}
	 */
	@Nullable String certificationCheck() {
		return null;
	}

	/**
	 * SQL expression that identifies the data of a MariaDB Galera node rather than the
	 * node: the same on every node of one cluster, so that a pool reconnecting to another
	 * node of the cluster does not look like a failover; {@code null} if the platform has
	 * no Galera.
	 * @return the expression or {@code null}
	 */
	@Nullable String galeraIdentity() {
		return null;
	}

	/**
	 * Prefix that makes a {@code SELECT} a causal read on a MariaDB Galera node: it waits
	 * until the node has applied every write set that the cluster committed before it was
	 * sent ({@code wsrep_sync_wait}), for that statement only; {@code null} if the
	 * platform has no Galera.
	 * @return the prefix or {@code null}
	 */
	@Nullable String causalRead() {
		return null;
	}

	/**
	 * Statement, before the {@link #fence(String, String) fence} on a server that
	 * certifies write sets, that changes the fence row of {@code :election} so that the
	 * row is in the fenced transaction's write set: certification then orders the
	 * transaction against every change of holder, which writes that row too, and aborts
	 * one of two that overlap. A share lock alone is not replicated, so it orders nothing
	 * across cluster nodes.
	 * @param fence the fence table
	 * @return the statement with named parameters, or {@code null} if the platform never
	 * certifies
	 */
	@Nullable String certifyFence(String fence) {
		return null;
	}

	/**
	 * The table as an {@code UPDATE} names it so that the statement reaches its rows
	 * through the primary key whatever the optimizer would estimate; the table itself
	 * where the plan cannot make a statement wait on rows it does not change (PostgreSQL
	 * and H2 lock only the rows they update).
	 * @param table the table
	 * @return the table reference
	 */
	String byKey(String table) {
		return table;
	}

	/**
	 * Statement that writes the fence row of election {@code ?} from its lease row: an
	 * insert, or an update of a row that an earlier lease of the same name left.
	 * @param fence the fence table
	 * @param lease the lease table
	 * @return the statement, with the election as its one parameter
	 */
	String writeFence(String fence, String lease) {
		return writeFences(fence, lease, "= ?");
	}

	/**
	 * Statement that writes the fence rows of many elections from their lease rows, as
	 * {@link #writeFence} does for one.
	 * @param fence the fence table
	 * @param lease the lease table
	 * @param key the condition on {@code election_name}, e.g. {@code IN (?, ?)}
	 * @return the statement, with the parameters of {@code key}
	 */
	String writeFences(String fence, String lease, String key) {
		String select = "SELECT l.election_name, l.leader_id, l.term FROM " + lease + " l WHERE l.election_name " + key;
		return switch (this) {
			// The update names the selected row's columns, not VALUES(), which MySQL
			// deprecates (8.0.20); nor the row alias that replaces it (INSERT ... VALUES
			// ... AS new), which MariaDB lacks. A reference to the SELECT's table in the
			// update is MySQL's and MariaDB's for INSERT ... SELECT.
			case MYSQL -> "INSERT INTO " + fence + " (election_name, leader_id, term) " + select
					+ " ON DUPLICATE KEY UPDATE leader_id = l.leader_id, term = l.term";
			case POSTGRESQL -> "INSERT INTO " + fence + " (election_name, leader_id, term) " + select
					+ " ON CONFLICT (election_name) DO UPDATE SET leader_id = EXCLUDED.leader_id, term = EXCLUDED.term";
			case H2 -> "MERGE INTO " + fence + " (election_name, leader_id, term) KEY (election_name) " + select;
		};
	}

	/**
	 * A string parameter where the statement alone does not type it, as in the select
	 * list of an {@code INSERT ... SELECT}: H2 refuses an untyped one.
	 * @return the parameter's SQL
	 */
	String stringParameter() {
		return (this == H2) ? "CAST(? AS VARCHAR)" : "?";
	}

	/**
	 * Clause appended to a multi-row {@code INSERT} so that rows whose key exists already
	 * are left as they are, or {@code null} if the platform has none (then one
	 * {@code INSERT} per row).
	 * @param keyColumn a column of the key, for MySQL's no-op update
	 * @return the clause or {@code null}
	 */
	@Nullable String ignoreDuplicateKeys(String keyColumn) {
		return switch (this) {
			case MYSQL -> " ON DUPLICATE KEY UPDATE " + keyColumn + " = " + keyColumn;
			case POSTGRESQL -> " ON CONFLICT DO NOTHING";
			case H2 -> null;
		};
	}

	/**
	 * Condition on the locked fence row {@code f}: it names the node and the term, and
	 * the lease of that holder and term is live ({@link #live}). The lease row and the
	 * holder's session row, which the holder's heartbeat writes, are read without a lock;
	 * the holder and term come from the locked row, so a change of holder that the fence
	 * waited for is seen even where the subquery reads an older snapshot.
	 * @param lease the lease table
	 * @param nodes the nodes table
	 * @param node SQL for the node id parameter
	 * @return the condition
	 */
	String holds(String lease, String nodes, String node) {
		return "f.leader_id = " + node + " AND f.term = :term AND EXISTS (SELECT 1 FROM " + lease
				+ " l WHERE l.election_name = f.election_name AND l.leader_id = f.leader_id AND l.term = f.term"
				+ " AND " + live("l", nodes) + ")";
	}

	/**
	 * Condition that a lease row has not expired: by its own expiry, or while its
	 * holder's session is live (the node row that names the instance that acquired the
	 * lease). A lock's row has no session.
	 * @param lease the alias of the lease row
	 * @param nodes the nodes table
	 * @return the condition
	 */
	String live(String lease, String nodes) {
		return "(" + lease + ".expires_at > " + this.now + " OR EXISTS (SELECT 1 FROM " + byKey(nodes + " s")
				+ " WHERE s.node_id = " + lease + ".leader_id AND s.instance_id = " + lease + ".leader_instance"
				+ " AND s.expires_at > " + this.now + "))";
	}

}
