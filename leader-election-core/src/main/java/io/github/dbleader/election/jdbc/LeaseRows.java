package io.github.dbleader.election.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.dbleader.election.LeaseState;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The SQL that both the elections' and the locks' repositories write and read rows of the
 * lease table with: the row's columns, the read that adds what the database clock says of
 * them, the insert of a new row, and the assignments of a change of holder.
 */
final class LeaseRows {

	/** The lease row's columns, less the server identity. */
	static final String COLUMNS = "election_name, leader_id, term, version, acquired_at, renewed_at, "
			+ "expires_at, handover_to, reelection_requested, yielded_by";

	private LeaseRows() {
	}

	/**
	 * A plain read of the lease table's rows: every column, whether the row has expired
	 * and was written by the answering server, and the database clock; {@link #map} reads
	 * it.
	 * @param dialect the dialect
	 * @param lease the lease table
	 * @param server SQL expression of the answering server's identity
	 * @return the statement without a condition
	 */
	static String select(SqlDialect dialect, String lease, String server) {
		String now = dialect.now();
		return "SELECT " + COLUMNS + ", CASE WHEN expires_at <= " + now
				+ " THEN 1 ELSE 0 END AS expired, CASE WHEN server_identity = " + server
				+ " THEN 1 ELSE 0 END AS same_server, " + now + " AS db_now FROM " + lease;
	}

	/**
	 * A read of elections' lease rows with their holders' sessions ({@link #mapElection}
	 * reads it): the lease row as {@link #select} reads it, but alive while its session
	 * is (the node row of the holder that names the instance that acquired the lease,
	 * refreshed by that instance's heartbeat), renewed when the session was, and the
	 * session's version. Without a session, the row's own times.
	 * @param dialect the dialect
	 * @param lease the lease table
	 * @param nodes the nodes table
	 * @param server SQL expression of the answering server's identity
	 * @return the statement without a condition; the lease table's alias is {@code l}
	 */
	static String selectElections(SqlDialect dialect, String lease, String nodes, String server) {
		String now = dialect.now();
		// The node row is the lease's session while it names the instance that acquired
		// it; once another instance took the node id over, that session has ended at
		// previous_version.
		String current = "n.node_id IS NOT NULL AND l.leader_instance IS NOT NULL AND n.instance_id = l.leader_instance";
		String ended = "n.node_id IS NOT NULL AND l.leader_instance IS NOT NULL AND n.previous_instance = l.leader_instance";
		// The renewal and the expiry of whichever lasts longer: the session or the
		// lease's own.
		String longer = "CASE WHEN " + current + " AND n.expires_at > l.expires_at THEN ";
		return "SELECT l.election_name, l.leader_id, l.term, l.version, l.acquired_at, " + longer
				+ "n.last_seen ELSE l.renewed_at END, " + longer + "n.expires_at ELSE l.expires_at END,"
				+ " l.handover_to, l.reelection_requested, l.yielded_by, CASE WHEN l.expires_at <= " + now
				+ " AND NOT (" + current + " AND n.expires_at > " + now + ") THEN 1 ELSE 0 END AS expired,"
				+ " CASE WHEN l.server_identity = " + server + " THEN 1 ELSE 0 END AS same_server, " + now
				+ " AS db_now, CASE WHEN " + current + " THEN n.version WHEN " + ended
				+ " THEN n.previous_version ELSE -1 END AS holder_version, CASE WHEN " + current + " THEN 0 WHEN "
				+ ended + " THEN 1 ELSE 0 END AS session_ended, " + server + " AS answering_server, CASE WHEN "
				+ current + " THEN n.node_rank END AS holder_rank FROM " + lease + " l LEFT JOIN "
				+ sessions(dialect, nodes) + " ON n.node_id = l.leader_id";
	}

	/**
	 * The heartbeat's read of a node's view ({@link LeaseView}), up to its lease rows:
	 * every node row (a session each) with the database clock and the answering server's
	 * identity (and the rank of the instance, in the column of the lease rows'
	 * {@code yielded_by}), then, after {@code UNION ALL}, the lease rows in the same
	 * columns. Its first column tells the kinds apart (0 a node row, 1 a lease row);
	 * {@link #viewWhole}, {@link #viewChanged} and {@link #viewByKey} add the lease rows.
	 * One statement, so one snapshot, and one statement of the round rather than two. A
	 * node row comes even from an empty nodes table (with a null node id), for the clock.
	 * @param dialect the dialect
	 * @param nodes the nodes table
	 * @param server SQL expression of the answering server's identity
	 * @return the statement's start
	 */
	static String viewSessions(SqlDialect dialect, String nodes, String server) {
		// In the positions of the lease rows' columns (VIEW_ROW); the types agree with
		// theirs.
		return "SELECT 0, n.node_id, n.instance_id, n.version, n.takeovers, n.previous_version, n.last_seen,"
				+ " n.expires_at, n.previous_instance, FALSE, n.node_rank, " + server + ", NULL, " + dialect.now()
				+ " FROM (SELECT 1 AS one) d LEFT JOIN " + nodes + " n ON 1 = 1";
	}

	/** The columns of a lease row in the view's read, after its kind. */
	private static final String VIEW_ROW = "l.leader_id, l.term, l.version, l.acquired_at, l.renewed_at, l.expires_at,"
			+ " l.handover_to, l.reelection_requested, l.yielded_by, l.server_identity, l.leader_instance, NULL";

	/**
	 * The part of the view's read that reads it whole: every election this node and
	 * instance are a candidate of, with its lease row if it has one (its version then not
	 * null); parameters: the node id and the instance id.
	 * @param lease the lease table
	 * @param candidates the candidates table
	 * @return the part, to append to {@link #viewSessions}
	 */
	static String viewWhole(String lease, String candidates) {
		return " UNION ALL SELECT 1, c.election_name, " + VIEW_ROW + " FROM " + candidates + " c LEFT JOIN " + lease
				+ " l ON l.election_name = c.election_name WHERE c.node_id = ? AND c.instance_id = ?";
	}

	/**
	 * A page of a whole read of a view, as a statement of its own (after
	 * {@link #viewSessions} alone): the next elections in name order after a given one,
	 * with their lease rows; parameters: the node id, the instance id, the last election
	 * of the page before (empty for the first) and the most elections of a page.
	 * @param lease the lease table
	 * @param candidates the candidates table
	 * @return the statement
	 */
	static String viewPage(String lease, String candidates) {
		return viewWhole(lease, candidates).substring(" UNION ALL ".length())
				+ " AND c.election_name > ? ORDER BY c.election_name LIMIT ?";
	}

	/**
	 * The part of the view's read that reads the lease rows changed from a database time
	 * on (by the index of {@code changed_at}), of any election; one parameter, the time.
	 * @param lease the lease table
	 * @return the part, to append to {@link #viewSessions}
	 */
	static String viewChanged(String lease) {
		return " UNION ALL SELECT 1, l.election_name, " + VIEW_ROW + " FROM " + lease + " l WHERE l.changed_at >= ?";
	}

	/**
	 * The part of the view's read that reads listed lease rows by key, up to the list.
	 * @param lease the lease table
	 * @return the part, to append to {@link #viewChanged}, followed by the keys'
	 * parameters and a closing parenthesis
	 */
	static String viewByKey(String lease) {
		return " UNION ALL SELECT 1, l.election_name, " + VIEW_ROW + " FROM " + lease + " l WHERE l.election_name IN (";
	}

	/**
	 * Map a row of the view's read into {@code read}.
	 * @param rs the result set on the row
	 * @param read what the read has answered so far
	 * @param whole whether the read is whole: its lease rows are the node's elections
	 * @throws SQLException if a column cannot be read
	 */
	static void mapView(ResultSet rs, LeaseView.Read read, boolean whole) throws SQLException {
		String name = rs.getString(2);
		if (rs.getInt(1) == 0) {
			read.clock(rs.getLong(14), rs.getString(12));
			if (name != null) {
				read.sessions()
					.put(read.shared(name),
							new LeaseView.Session(read.shared(rs.getString(3)), rs.getLong(4), rs.getLong(8),
									rs.getLong(7), read.shared(rs.getString(9)), rs.getLong(6), rs.getLong(5),
									read.shared(rs.getString(11))));
			}
			return;
		}
		if (whole) {
			read.members().add(name);
		}
		long version = rs.getLong(5);
		if (rs.wasNull()) {
			// A candidacy of an election without a lease row yet.
			return;
		}
		read.rows()
			.add(new LeaseView.Row(name, read.shared(rs.getString(3)), rs.getLong(4), version, instant(rs, 6),
					instant(rs, 7), Instant.ofEpochMilli(rs.getLong(8)), read.shared(rs.getString(9)),
					rs.getBoolean(10), read.shared(rs.getString(11)), read.shared(rs.getString(12)),
					read.shared(rs.getString(13))));
	}

	/**
	 * The nodes table, aliased {@code n}, as the statements that read a lease's session
	 * name it: by its key, whatever the optimizer would estimate of a small table.
	 * @param dialect the dialect
	 * @param nodes the nodes table
	 * @return the table reference
	 */
	static String sessions(SqlDialect dialect, String nodes) {
		return dialect.byKey(nodes + " n");
	}

	/**
	 * The condition that a lease row has no session: no node row names its holder and the
	 * instance that acquired it. A take-over of a lease seen without one requires it, so
	 * that a session that appeared since (the holder's row created again) is never passed
	 * over without writing its row. Unqualified, so that it reads the row of the
	 * statement it is part of.
	 * @param nodes the nodes table as aliased {@code n} ({@link #sessions})
	 * @return the condition
	 */
	static String noSession(String nodes) {
		// A scalar subquery, not NOT EXISTS: MariaDB turns the anti-join into a
		// materialized scan of the whole nodes table.
		return "COALESCE((SELECT 1 FROM " + nodes + " WHERE n.node_id = leader_id AND n.instance_id = leader_instance),"
				+ " 0) = 0";
	}

	/**
	 * The condition that a lease row's session ended at the version given as a parameter:
	 * its holder's node row now names another instance, and the instance that acquired
	 * the lease last refreshed it at that version. The earlier instance can refresh it no
	 * more.
	 * @param nodes the nodes table as aliased {@code n} ({@link #sessions})
	 * @return the condition, with one parameter
	 */
	static String sessionEndedAt(String nodes) {
		return "COALESCE((SELECT n.previous_version FROM " + nodes + " WHERE n.node_id = leader_id"
				+ " AND n.previous_instance = leader_instance), -1) = ?";
	}

	/**
	 * When an election's lease expires: its own expiry, or its session's if that is
	 * later. Unqualified, so that it reads the row of the statement it is part of.
	 * @param nodes the nodes table as aliased {@code n} ({@link #sessions})
	 * @return the SQL expression
	 */
	static String expiry(String nodes) {
		return "GREATEST(expires_at, COALESCE((SELECT n.expires_at FROM " + nodes
				+ " WHERE n.node_id = leader_id AND n.instance_id = leader_instance), 0))";
	}

	/**
	 * The insert of a new row, held by a node until a duration from now; parameters: the
	 * key, the node id and the duration in milliseconds.
	 * @param dialect the dialect
	 * @param lease the lease table
	 * @param server SQL expression of the answering server's identity
	 * @return the statement
	 */
	static String insert(SqlDialect dialect, String lease, String server) {
		String now = dialect.now();
		return "INSERT INTO " + lease + " (" + COLUMNS + ", server_identity, changed_at) VALUES (?, ?, " + now + ", 1, "
				+ now + ", " + now + ", " + now + " + ?, NULL, FALSE, NULL, " + server + ", " + now + ")";
	}

	/**
	 * The insert of a new election's row, as {@link #insert}, tied to the session of the
	 * acquiring instance; parameters: the key, the node id, the duration in milliseconds
	 * and the instance id.
	 * @param dialect the dialect
	 * @param lease the lease table
	 * @param server SQL expression of the answering server's identity
	 * @return the statement
	 */
	static String insertElection(SqlDialect dialect, String lease, String server) {
		String now = dialect.now();
		return "INSERT INTO " + lease + " (" + COLUMNS
				+ ", server_identity, changed_at, leader_instance) VALUES (?, ?, " + now + ", 1, " + now + ", " + now
				+ ", " + now + " + ?, NULL, FALSE, NULL, " + server + ", " + now + ", ?)";
	}

	/**
	 * The assignments of a change of holder: a new term, never handed out before (I4),
	 * and a fresh lease acquired on the server that answers; one parameter, the lease in
	 * milliseconds.
	 * @param now SQL expression of the database clock
	 * @param serverIdentity SQL expression of the answering server's identity
	 * @return the assignments
	 */
	static String newTerm(String now, String serverIdentity) {
		return "term = GREATEST(term + 1, " + now + "), version = version + 1, acquired_at = " + now + ", renewed_at = "
				+ now + ", expires_at = " + now + " + ?, handover_to = NULL, "
				+ "reelection_requested = FALSE, yielded_by = NULL, server_identity = " + serverIdentity + ", "
				+ changed(now);
	}

	/**
	 * The assignments of a holder's re-acquire: a new term as {@link #newTerm}, but an
	 * operator's request recorded after the holder's decision stays, for its next round
	 * to carry out (I6): only a hand-over to the holder itself, which the re-acquire
	 * carries out, is cleared. One parameter, the lease in milliseconds.
	 * @param now SQL expression of the database clock
	 * @param serverIdentity SQL expression of the answering server's identity
	 * @return the assignments
	 */
	static String reacquiredTerm(String now, String serverIdentity) {
		return "term = GREATEST(term + 1, " + now + "), version = version + 1, acquired_at = " + now + ", renewed_at = "
				+ now + ", expires_at = " + now + " + ?, handover_to = CASE WHEN handover_to = "
				+ "leader_id THEN NULL ELSE handover_to END, yielded_by = NULL, server_identity = " + serverIdentity
				+ ", " + changed(now);
	}

	/**
	 * The assignment that marks a row as changed now, in every write of an election's
	 * lease row other than a lock's extension: the heartbeat reads the rows changed since
	 * its last read ({@link LeaseView}).
	 * @param now SQL expression of the database clock
	 * @return the assignment
	 */
	static String changed(String now) {
		return "changed_at = " + now;
	}

	/**
	 * The condition under which a node may take a lease over, the same for one row and
	 * for a batch: vacant (and not given up by this node less than a lease ago), or held
	 * and expired by the database clock at the version the node watched for a whole lease
	 * (I3); and not handed over to another node, unless that hand-over lapsed. A held
	 * lease expires with its session ({@link #expiry}). Its parameters: the node id and
	 * the lease in milliseconds, those of {@code observedVersion}, then the node id and
	 * the lease in milliseconds again.
	 * @param now SQL expression of the database clock
	 * @param observedVersion the condition on the row's version, e.g. {@code version = ?}
	 * @param nodes the nodes table as aliased {@code n} ({@link #sessions})
	 * @return the condition
	 */
	static String takeable(String now, String observedVersion, String nodes) {
		String expiry = expiry(nodes);
		return "((leader_id IS NULL AND (yielded_by IS NULL OR yielded_by <> ? OR expires_at + ? <= " + now
				+ ")) OR (leader_id IS NOT NULL AND " + expiry + " <= " + now + " AND " + observedVersion
				+ ")) AND (handover_to IS NULL OR handover_to = ? OR " + expiry + " + ? <= " + now + ")";
	}

	/**
	 * Map a row of {@link #select}, by the columns' positions: at a hundred thousand rows
	 * a read, looking each column up by its label was a measurable part of the
	 * heartbeat's read.
	 * @param rs the result set on the row
	 * @return the lease
	 * @throws SQLException if a column cannot be read
	 */
	static LeaseState map(ResultSet rs) throws SQLException {
		return map(rs, -1, false);
	}

	/**
	 * Map a row of {@link #selectElections}.
	 * @param rs the result set on the row
	 * @return the lease
	 * @throws SQLException if a column cannot be read
	 */
	static LeaseState mapElection(ResultSet rs) throws SQLException {
		// The answering server too: a change decided on one server's read and applied on
		// another's (a failover between them) is not believed.
		return map(rs, rs.getLong(14), rs.getInt(15) == 1, rs.getString(16), rs.getString(17));
	}

	private static LeaseState map(ResultSet rs, long holderVersion, boolean sessionEnded) throws SQLException {
		return map(rs, holderVersion, sessionEnded, null, null);
	}

	private static LeaseState map(ResultSet rs, long holderVersion, boolean sessionEnded, @Nullable String server,
			@Nullable String holderRank) throws SQLException {
		// In the order of COLUMNS, then expired, same_server and db_now.
		return new LeaseState(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4), instant(rs, 5),
				instant(rs, 6), Instant.ofEpochMilli(rs.getLong(7)), rs.getString(8), rs.getBoolean(9),
				rs.getString(10), rs.getInt(11) == 1, rs.getInt(12) == 1, Instant.ofEpochMilli(rs.getLong(13)),
				holderVersion, sessionEnded, server, holderRank);
	}

	private static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
		long millis = rs.getLong(column);
		return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	/**
	 * Most rows one keyed update lists: three parameters each, below PostgreSQL's limit
	 * of 32767.
	 */
	static final int MAX_ROWS_PER_UPDATE = 10_000;

	/**
	 * Run an update of rows listed by key and term, one statement per chunk of
	 * {@value #MAX_ROWS_PER_UPDATE}: the statement lists the keys
	 * ({@link SqlTemplate#NAMES}), which gives the plan its key ranges (a list of pairs
	 * alone is no range on MariaDB), and then each row's key with its term
	 * ({@link SqlTemplate#PAIRS}).
	 * @param jdbc where
	 * @param statement the statement: a duration in milliseconds, the holder, the keys,
	 * then the (key, term) pairs
	 * @param heldTerms the rows' keys and terms
	 * @param millis the first parameter (a duration in milliseconds)
	 * @param nodeId the second parameter (the holder)
	 * @return the rows changed, summed over the chunks
	 */
	static int updateByKeyAndTerm(JdbcTemplate jdbc, SqlTemplate statement, Map<String, Long> heldTerms, long millis,
			String nodeId) {
		List<Map.Entry<String, Long>> held = List.copyOf(heldTerms.entrySet());
		int changed = 0;
		for (int from = 0; from < held.size(); from += MAX_ROWS_PER_UPDATE) {
			List<Map.Entry<String, Long>> chunk = held.subList(from, Math.min(held.size(), from + MAX_ROWS_PER_UPDATE));
			List<Object> args = new ArrayList<>(2 + chunk.size() * 3);
			args.add(millis);
			args.add(nodeId);
			for (Map.Entry<String, Long> row : chunk) {
				args.add(row.getKey());
			}
			for (Map.Entry<String, Long> row : chunk) {
				args.add(row.getKey());
				args.add(row.getValue());
			}
			changed += jdbc.update(statement.render(chunk.size()), args.toArray());
		}
		return changed;
	}

}
