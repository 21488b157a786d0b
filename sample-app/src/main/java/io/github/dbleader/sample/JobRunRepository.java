package io.github.dbleader.sample;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.sql.DataSource;

import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A job runs table: one row per job run, with times from the database clock in epoch
 * milliseconds, so rows of different nodes can be compared with each other and with the
 * lease. The table is created on first use if missing, on any of the supported databases,
 * also when several nodes start at once. There are two ({@link JobRunTables}): the
 * leader-only job's and the cluster-lock job's.
 */
public class JobRunRepository {

	private final JdbcTemplate jdbc;

	private final DataSource dataSource;

	private final String table;

	/** The database clock expression, once the table exists. */
	private volatile @Nullable String now;

	/**
	 * Create the repository of a table. The table is created on first use, not here, so
	 * that the application starts while its database is away.
	 * @param jdbc the application's JDBC template
	 * @param dataSource the application's data source
	 * @param table the table's name
	 * @param property the property that names the table, for the message if it is invalid
	 */
	public JobRunRepository(JdbcTemplate jdbc, DataSource dataSource, String table, String property) {
		this.jdbc = jdbc;
		this.dataSource = dataSource;
		this.table = table;
		if (!LeaseTables.isValidName(this.table)) {
			// The name is written into SQL: accept a plain identifier only, as the
			// election does.
			throw new IllegalArgumentException(property + " '" + this.table
					+ "' is not a plain identifier: use 1 to 63 letters, digits or underscores");
		}
	}

	/**
	 * The election's own clock expression, so job times and lease times are comparable;
	 * creates the table if missing the first time.
	 */
	private String now() {
		String now = this.now;
		if (now == null) {
			now = createTable();
			this.now = now;
		}
		return now;
	}

	private String createTable() {
		// A connection of its own, outside the caller's transaction (a fenced one, where
		// a failed statement would abort the whole transaction on PostgreSQL).
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			SqlDialect dialect = SqlDialect.forName(connection.getMetaData().getDatabaseProductName());
			String id = (dialect == SqlDialect.POSTGRESQL) ? "BIGSERIAL PRIMARY KEY"
					: "BIGINT AUTO_INCREMENT PRIMARY KEY";
			try {
				statement.execute("CREATE TABLE IF NOT EXISTS " + this.table + " (id " + id
						+ ", election VARCHAR(128) NOT NULL, node_id VARCHAR(255) NOT NULL, term BIGINT NOT NULL, "
						+ "started_at BIGINT NOT NULL, finished_at BIGINT NOT NULL)");
			}
			catch (SQLException ex) {
				// Another node created it at the same instant: PostgreSQL's CREATE TABLE
				// IF NOT EXISTS fails in one of two sessions that run it at once. Fine if
				// it exists now.
				try {
					statement.executeQuery("SELECT COUNT(*) FROM " + this.table + " WHERE 1 = 0").close();
				}
				catch (SQLException notThere) {
					ex.addSuppressed(notThere);
					throw ex;
				}
			}
			return dialect.currentTimeMillis();
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("Could not create the job runs table " + this.table, ex);
		}
	}

	/**
	 * Read the database clock.
	 * @return epoch milliseconds
	 */
	public long databaseTime() {
		Long millis = this.jdbc.queryForObject("SELECT " + now(), Long.class);
		return (millis != null) ? millis : 0;
	}

	/**
	 * Record a run that started at the given database time and finishes now.
	 * @param election election name
	 * @param nodeId node that ran the job
	 * @param term term it ran under
	 * @param startedAt database time of the start
	 */
	public void insert(String election, String nodeId, long term, long startedAt) {
		this.jdbc.update("INSERT INTO " + this.table
				+ " (election, node_id, term, started_at, finished_at) VALUES (?, ?, ?, ?, " + now() + ")", election,
				nodeId, term, startedAt);
	}

	/**
	 * The latest runs, newest first.
	 * @param limit how many
	 * @return the runs
	 */
	public List<JobRun> latest(int limit) {
		now();
		return this.jdbc.query(
				"SELECT id, election, node_id, term, started_at, finished_at FROM " + this.table
						+ " ORDER BY id DESC LIMIT ?",
				(rs, row) -> new JobRun(rs.getLong("id"), rs.getString("election"), rs.getString("node_id"),
						rs.getLong("term"), Instant.ofEpochMilli(rs.getLong("started_at")),
						Instant.ofEpochMilli(rs.getLong("finished_at"))),
				limit);
	}

	/**
	 * How many of the latest runs each node made.
	 * @param latest how many of the latest runs to count
	 * @return the count per node, by node id
	 */
	public Map<String, Integer> runsPerNode(int latest) {
		now();
		Map<String, Integer> counts = new TreeMap<>();
		this.jdbc.query("SELECT node_id, COUNT(*) AS runs FROM (SELECT node_id FROM " + this.table
				+ " ORDER BY id DESC LIMIT ?) latest GROUP BY node_id", (rs) -> {
					counts.put(rs.getString("node_id"), rs.getInt("runs"));
				}, latest);
		return counts;
	}

	/**
	 * One run of the job.
	 *
	 * @param id row id
	 * @param election election name
	 * @param nodeId node that ran it
	 * @param term term it ran under
	 * @param startedAt start, database clock
	 * @param finishedAt end, database clock
	 */
	public record JobRun(long id, String election, String nodeId, long term, Instant startedAt, Instant finishedAt) {
	}

}
