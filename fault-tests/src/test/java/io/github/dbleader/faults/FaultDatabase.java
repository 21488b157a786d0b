package io.github.dbleader.faults;

import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;

/**
 * A database the fault tests run against: by default the test rig's MySQL-protocol
 * {@link TestDatabase#MYSQL}, that is the server given by
 * {@code LEADER_ELECTION_TEST_MYSQL_URL}, {@code _USERNAME} and {@code _PASSWORD} (what
 * CI exports), else a MySQL container where Docker runs, else an embedded MariaDB; or its
 * {@link TestDatabase#POSTGRESQL} the same way
 * ({@code LEADER_ELECTION_TEST_POSTGRESQL_*}); each on a TCP port, so that the sample
 * processes reach it too, through a proxy in front of that port. A server that cannot be
 * had or reached fails the tests with a message that says why; it never skips them. What
 * differs between the two is here: the URL's form and default port, the driver's timeout
 * units, the database clock and how a missing table is reported.
 *
 * <p>
 * The tables are the suite's own ({@link #LEASE_TABLE}, {@link #CANDIDATE_TABLE},
 * {@link #JOB_RUNS_TABLE}), so that other test runs on the same database are not
 * disturbed.
 */
final class FaultDatabase {

	static final String LEASE_TABLE = "fault_lease";

	static final String CANDIDATE_TABLE = "fault_candidate";

	static final String JOB_RUNS_TABLE = "fault_job_runs";

	/** The runs of the sample's cluster-lock job. */
	static final String LOCK_JOB_RUNS_TABLE = "fault_lock_job_runs";

	/** The runs of the sample's partitioned job, one row per partition and run. */
	static final String PARTITION_JOB_RUNS_TABLE = "fault_partition_job_runs";

	/** The election the sample's job runs under. */
	static final String ELECTION = "default";

	private static final Pattern URL = Pattern.compile("jdbc:(mysql|mariadb|postgresql)://([^/:?,]+)(?::(\\d+))?(.*)");

	/** The part of a URL after host and port: the database and the parameters. */
	private static final Pattern DATABASE_PATH = Pattern.compile("/([A-Za-z0-9_]+)(\\?.*)?");

	/** SQLSTATE of a missing table: MySQL and MariaDB (error 1146), PostgreSQL. */
	private static final List<String> MISSING_TABLE = List.of("42S02", "42P01");

	private final String url;

	private final String username;

	private final String password;

	private final Matcher parsed;

	private final SqlDialect dialect;

	/** Connection that reads the database clock; guarded by {@code this}. */
	private Connection clock;

	private FaultDatabase(String url, String username, String password) {
		this.url = url;
		this.username = username;
		this.password = password;
		this.parsed = URL.matcher(url);
		if (!this.parsed.matches()) {
			throw new IllegalStateException("The test database's URL '" + url + "' is not a single-host "
					+ "jdbc:mysql://, jdbc:mariadb:// or jdbc:postgresql:// URL; the fault tests put a proxy in front "
					+ "of that host");
		}
		this.dialect = SqlDialect.forName(this.parsed.group(1));
	}

	/**
	 * The test rig's MySQL-protocol database, checked to be reachable.
	 * @return the database
	 * @throws IllegalStateException if it cannot be had or reached
	 */
	static FaultDatabase fromEnvironment() {
		return fromEnvironment(TestDatabase.MYSQL);
	}

	/**
	 * One of the test rig's databases, checked to be reachable.
	 * @param database {@link TestDatabase#MYSQL} or {@link TestDatabase#POSTGRESQL}
	 * @return the database
	 * @throws IllegalStateException if it cannot be had or reached
	 */
	static FaultDatabase fromEnvironment(TestDatabase database) {
		database.dataSource(1).close();
		return new FaultDatabase(database.url(), database.username(), database.password());
	}

	/**
	 * The test rig's MySQL-protocol database for a {@link ForkUse.Mode#SHARED} scenario
	 * class: the first fork's is {@link #fromEnvironment()}, each other fork's a database
	 * beside it named after it with {@code _fork} and the fork's number (system property
	 * {@code fault.fork}), created if missing, so that the forks' scenarios, which share
	 * the suite's table names, never see each other's rows.
	 * @return the database
	 * @throws IllegalStateException if it cannot be had, reached or created
	 */
	static FaultDatabase forThisFork() {
		FaultDatabase server = fromEnvironment();
		int fork = ForkLock.forkNumber();
		if (fork <= 1) {
			return server;
		}
		Matcher path = DATABASE_PATH.matcher(server.parsed.group(4));
		if (!path.matches()) {
			throw new IllegalStateException("The test database's URL '" + server.url + "' names no database; fork "
					+ fork + " of the fault tests needs one to name its own after");
		}
		String database = path.group(1) + "_fork" + fork;
		try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE IF NOT EXISTS " + database);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(
					"Fork " + fork + " of the fault tests runs on a database of its own, " + database + ", which user '"
							+ server.username + "' could not create: create it and grant that user "
							+ "every privilege on it (.ci/run does), or run one fork with -Dfault.forks=1",
					ex);
		}
		return new FaultDatabase("jdbc:" + server.parsed.group(1) + "://" + server.parsed.group(2)
				+ ((server.parsed.group(3) != null) ? ":" + server.parsed.group(3) : "") + "/" + database
				+ ((path.group(2) != null) ? path.group(2) : ""), server.username, server.password);
	}

	/**
	 * A MySQL-protocol server at a single-host JDBC URL, such as one node of a Galera
	 * cluster. Not checked to be reachable.
	 * @param url the URL
	 * @param username user name
	 * @param password password
	 * @return the database
	 */
	static FaultDatabase at(String url, String username, String password) {
		return new FaultDatabase(url, username, password);
	}

	String url() {
		return this.url;
	}

	String username() {
		return this.username;
	}

	String password() {
		return this.password;
	}

	/**
	 * @return the election's SQL dialect for this database
	 */
	SqlDialect dialect() {
		return this.dialect;
	}

	/**
	 * @return the database clock in epoch milliseconds: the expression the election
	 * itself uses
	 */
	String nowMillis() {
		return this.dialect.currentTimeMillis();
	}

	/**
	 * Whether a statement failed because its table does not exist (yet).
	 * @param ex the failure
	 * @return {@code true} for a missing table
	 */
	static boolean isMissingTable(SQLException ex) {
		return MISSING_TABLE.contains(ex.getSQLState());
	}

	/**
	 * @return host and port of the database server, where a proxy forwards to
	 */
	InetSocketAddress address() {
		String port = this.parsed.group(3);
		int defaultPort = (this.dialect == SqlDialect.POSTGRESQL) ? 5432 : 3306;
		return new InetSocketAddress(this.parsed.group(2), (port != null) ? Integer.parseInt(port) : defaultPort);
	}

	/**
	 * The JDBC URL with the server replaced by a local port, e.g. a proxy's.
	 * @param port the port on 127.0.0.1
	 * @return the URL
	 */
	String urlThrough(int port) {
		return "jdbc:" + this.parsed.group(1) + "://127.0.0.1:" + port + this.parsed.group(4);
	}

	/**
	 * A direct connection (no proxy) whose reads give up after five seconds.
	 * @return the connection; close it
	 * @throws SQLException if the database cannot be reached
	 */
	Connection connect() throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", this.username);
		properties.setProperty("password", this.password);
		// Connector/J counts these in milliseconds, the PostgreSQL driver in seconds.
		String fiveSeconds = (this.dialect == SqlDialect.POSTGRESQL) ? "5" : "5000";
		properties.setProperty("connectTimeout", fiveSeconds);
		properties.setProperty("socketTimeout", fiveSeconds);
		return DriverManager.getConnection(this.url, properties);
	}

	/**
	 * Read every election's lease at once.
	 * @return the leases by election name, each seen at the same database time
	 */
	Map<String, LeaseMonitor.Sighting> leases() {
		String query = "SELECT election_name, leader_id, term, version, acquired_at, renewed_at, expires_at, handover_to, "
				+ "reelection_requested, " + nowMillis() + " AS db_now FROM " + leaseView(LEASE_TABLE);
		Map<String, LeaseMonitor.Sighting> leases = new HashMap<>();
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(query)) {
			while (result.next()) {
				leases.put(result.getString("election_name"),
						new LeaseMonitor.Sighting(result.getLong("db_now"), result.getString("leader_id"),
								result.getLong("term"), result.getLong("version"), result.getLong("acquired_at"),
								result.getLong("renewed_at"), result.getLong("expires_at"),
								result.getString("handover_to"), result.getBoolean("reelection_requested")));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the leases", ex);
		}
		return leases;
	}

	/**
	 * The leases of a lease table as the election sees them: a lease lives while its own
	 * expiry or its holder's session (the row of the holder's node id that names the
	 * instance that acquired it) has not run out, and was renewed when that session was.
	 * @param leaseTable the lease table
	 * @return a derived table with the lease table's columns, {@code renewed_at} and
	 * {@code expires_at} the election's
	 */
	static String leaseView(String leaseTable) {
		String session = "CASE WHEN n.node_id IS NOT NULL AND n.expires_at > l.expires_at THEN ";
		return "(SELECT l.election_name, l.leader_id, l.term, l.version, l.acquired_at, " + session
				+ "n.last_seen ELSE l.renewed_at END AS renewed_at, " + session
				+ "n.expires_at ELSE l.expires_at END AS expires_at, l.handover_to, l.reelection_requested FROM "
				+ leaseTable + " l LEFT JOIN " + leaseTable + "_nodes n ON n.node_id = l.leader_id"
				+ " AND n.instance_id = l.leader_instance) leases";
	}

	/** Drop the suite's tables; the sample processes create them again at start-up. */
	void dropTables() {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			for (String table : new String[] { LEASE_TABLE, CANDIDATE_TABLE, LEASE_TABLE + "_fence",
					LEASE_TABLE + "_nodes", LEASE_TABLE + "_pins", JOB_RUNS_TABLE, LOCK_JOB_RUNS_TABLE,
					PARTITION_JOB_RUNS_TABLE }) {
				statement.execute("DROP TABLE IF EXISTS " + table);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not drop the fault tests' tables", ex);
		}
	}

	/**
	 * Read the database clock.
	 * @return epoch milliseconds, UTC
	 */
	synchronized long now() {
		try {
			if (this.clock == null || this.clock.isClosed()) {
				this.clock = connect();
			}
			try (Statement statement = this.clock.createStatement();
					ResultSet result = statement.executeQuery("SELECT " + nowMillis())) {
				result.next();
				return result.getLong(1);
			}
		}
		catch (SQLException ex) {
			closeClock();
			throw new IllegalStateException("Could not read the database clock", ex);
		}
	}

	synchronized void closeClock() {
		if (this.clock != null) {
			try {
				this.clock.close();
			}
			catch (SQLException ex) {
				// Closing anyway.
			}
			this.clock = null;
		}
	}

}
