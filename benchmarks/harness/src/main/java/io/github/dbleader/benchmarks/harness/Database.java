package io.github.dbleader.benchmarks.harness;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The MariaDB server of the run, reached as its administrator: creates the database
 * {@value #NAME} and one user per node slot ({@code bench_node1}, ...), turns on
 * {@code userstat} for the run, reads the database clock, the job runs and the per-user
 * statement counters of {@code INFORMATION_SCHEMA.USER_STATISTICS}.
 */
final class Database implements AutoCloseable {

	/** The benchmark database. */
	static final String NAME = "bench";

	/** The database clock in epoch milliseconds, as the applications read it. */
	static final String NOW_MILLIS = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";

	private static final String USER_PREFIX = "bench_node";

	private final String serverUrl;

	private final Connection connection;

	private final String userstatBefore;

	private Database(String serverUrl, Connection connection, String userstatBefore) {
		this.serverUrl = serverUrl;
		this.connection = connection;
		this.userstatBefore = userstatBefore;
	}

	/**
	 * Connect, create the database and the users of the node slots, and turn on
	 * {@code userstat} until {@link #close()}.
	 * @param settings the run's settings
	 * @return the database
	 * @throws SQLException if the server cannot be reached or refuses
	 */
	static Database prepare(RunSettings settings) throws SQLException {
		Connection connection = DriverManager.getConnection(settings.jdbcUrl() + "/", settings.adminUser(),
				settings.adminPassword());
		try (Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE IF NOT EXISTS " + NAME);
			for (int slot = 1; slot <= settings.nodes(); slot++) {
				statement.execute("CREATE USER IF NOT EXISTS '" + user(slot) + "'@'%'");
				statement.execute("GRANT ALL ON " + NAME + ".* TO '" + user(slot) + "'@'%'");
			}
			statement.execute("USE " + NAME);
			String userstat;
			try (ResultSet result = statement.executeQuery("SELECT @@GLOBAL.userstat")) {
				result.next();
				userstat = result.getString(1);
			}
			statement.execute("SET GLOBAL userstat = ON");
			return new Database(settings.jdbcUrl(), connection, userstat);
		}
		catch (SQLException ex) {
			connection.close();
			throw ex;
		}
	}

	/**
	 * The database user of a node slot: every process started in that slot connects as
	 * it, so the server counts its statements apart from every other's.
	 * @param slot 1-based slot
	 * @return the user name
	 */
	static String user(int slot) {
		return USER_PREFIX + slot;
	}

	/**
	 * @return the JDBC URL the applications connect to
	 */
	String applicationUrl() {
		return this.serverUrl + "/" + NAME;
	}

	/**
	 * @return the server's version string
	 */
	synchronized String version() throws SQLException {
		return queryString("SELECT VERSION()");
	}

	/**
	 * @return the database clock in epoch milliseconds
	 */
	synchronized long now() throws SQLException {
		try (Statement statement = this.connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT " + NOW_MILLIS)) {
			result.next();
			return result.getLong(1);
		}
	}

	/**
	 * Drop a system's job runs and lock tables, so its run starts from nothing.
	 * @param system the system
	 */
	synchronized void reset(SystemUnderTest system) throws SQLException {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS " + system.jobRunsTable());
			for (String table : system.lockTables()) {
				statement.execute("DROP TABLE IF EXISTS " + table);
			}
		}
	}

	/**
	 * Read the statement counters of every node slot's user.
	 * @return counters by user
	 */
	synchronized Map<String, StatementCounters> statementCounters() throws SQLException {
		Map<String, StatementCounters> counters = new HashMap<>();
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT USER, SELECT_COMMANDS, "
				+ "UPDATE_COMMANDS, OTHER_COMMANDS FROM INFORMATION_SCHEMA.USER_STATISTICS WHERE USER LIKE ?")) {
			statement.setString(1, USER_PREFIX + "%");
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					counters.put(result.getString(1),
							new StatementCounters(result.getLong(2), result.getLong(3), result.getLong(4)));
				}
			}
		}
		return counters;
	}

	/**
	 * Read the job runs of a system that started or finished at or after a database time.
	 * @param system the system
	 * @param fromMillis database time
	 * @return the runs ordered by start
	 */
	synchronized List<JobRun> runs(SystemUnderTest system, long fromMillis) throws SQLException {
		List<JobRun> runs = new ArrayList<>();
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT node_id, term, started_at, "
				+ "finished_at FROM " + system.jobRunsTable() + " WHERE finished_at >= ? ORDER BY started_at, id")) {
			statement.setLong(1, fromMillis);
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					runs.add(new JobRun(result.getString(1), result.getLong(2), result.getLong(3), result.getLong(4)));
				}
			}
		}
		catch (SQLException ex) {
			// 1146: the table does not exist before the first node started.
			if (ex.getErrorCode() != 1146) {
				throw ex;
			}
		}
		return runs;
	}

	/**
	 * Who holds each election, role or lock of a system now, as the scale benchmark
	 * compares them: this starter's live leases (holder, term, acquired at) and Spring
	 * Integration's lock rows (client id, its time of acquisition as the term; a row
	 * stays until another client takes it over, which sets that time anew). ShedLock has
	 * no holder between its runs: empty.
	 * @param system the system
	 * @return holders by election, role or lock key
	 */
	synchronized Map<String, Holder> holders(SystemUnderTest system) throws SQLException {
		String sql = switch (system) {
			// An election lives on its holder's session too (the node row that names the
			// instance that acquired it); a lock only on its own expiry.
			case OURS, OURS_LOCK, OURS_LONG, SHEDLOCK_PROVIDER ->
				"SELECT l.election_name, l.leader_id, l.term, l.acquired_at"
						+ " FROM leader_election_lease l LEFT JOIN leader_election_lease_nodes n ON n.node_id = l.leader_id"
						+ " AND n.instance_id = l.leader_instance WHERE l.leader_id IS NOT NULL AND (l.expires_at > "
						+ NOW_MILLIS + " OR n.expires_at > " + NOW_MILLIS + ")";
			case INTEGRATION ->
				"SELECT LOCK_KEY, CLIENT_ID, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', CREATED_DATE),"
						+ " 0 FROM INT_LOCK";
			case SHEDLOCK, SHEDLOCK_LONG -> null;
		};
		Map<String, Holder> holders = new HashMap<>();
		if (sql == null) {
			return holders;
		}
		try (Statement statement = this.connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
			while (result.next()) {
				holders.put(result.getString(1), new Holder(result.getString(2), result.getLong(3), result.getLong(4)));
			}
		}
		catch (SQLException ex) {
			// 1146: the table does not exist before the first node started.
			if (ex.getErrorCode() != 1146) {
				throw ex;
			}
		}
		return holders;
	}

	private String queryString(String sql) throws SQLException {
		try (Statement statement = this.connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
	}

	/** Put {@code userstat} back as it was and disconnect. */
	@Override
	public synchronized void close() throws SQLException {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("SET GLOBAL userstat = "
					+ ("1".equals(this.userstatBefore) || "ON".equalsIgnoreCase(this.userstatBefore) ? "ON" : "OFF"));
		}
		finally {
			this.connection.close();
		}
	}

	/**
	 * The holder of one election, role or lock.
	 *
	 * @param holder node id (this starter) or client id (Spring Integration)
	 * @param term the lease's term (this starter), the lock's acquisition time in
	 * microseconds (Spring Integration)
	 * @param acquiredAt when the holder took it, database clock (this starter; 0
	 * otherwise)
	 */
	record Holder(String holder, long term, long acquiredAt) {

	}

	/**
	 * Statement counters of one user, as MariaDB counts them.
	 *
	 * @param selects {@code SELECT_COMMANDS}
	 * @param updates {@code UPDATE_COMMANDS} (INSERT, UPDATE, DELETE, ...)
	 * @param others {@code OTHER_COMMANDS} (SET, COMMIT, ...)
	 */
	record StatementCounters(long selects, long updates, long others) {

		static final StatementCounters NONE = new StatementCounters(0, 0, 0);

		long total() {
			return this.selects + this.updates + this.others;
		}

		StatementCounters minus(StatementCounters earlier) {
			return new StatementCounters(this.selects - earlier.selects, this.updates - earlier.updates,
					this.others - earlier.others);
		}

	}

}
