package io.github.dbleader.sample;

import java.util.List;
import java.util.Locale;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.dbleader.test.TestDatabase;

import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The MySQL-protocol database the sample's integration tests run on: the test rig's
 * {@link TestDatabase#MYSQL}, that is the server given by
 * {@code LEADER_ELECTION_TEST_MYSQL_URL}, {@code _USERNAME} and {@code _PASSWORD} (the
 * variables {@code .ci/run} exports), else a MySQL container where Docker runs, else an
 * embedded MariaDB. A server that cannot be had or reached fails the test with a message
 * that says why; it is never a skip.
 *
 * <p>
 * Other builds use the same database at the same time, so each instance names its own
 * tables with a random prefix and drops only those.
 */
final class SampleDatabase {

	private static final TestDatabase DATABASE = TestDatabase.MYSQL;

	private final String prefix = "sample_" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);

	private final JdbcTemplate jdbc;

	private SampleDatabase(DataSource dataSource) {
		this.jdbc = new JdbcTemplate(dataSource);
	}

	/**
	 * Check that the database answers and name fresh tables on it.
	 * @return the database
	 * @throws IllegalStateException if the database cannot be had or reached
	 */
	static SampleDatabase connect() {
		// Checked to be reachable; the message of a failure says what to set.
		DATABASE.dataSource(1).close();
		return new SampleDatabase(new DriverManagerDataSource(url(), username(), password()));
	}

	static String url() {
		return DATABASE.url();
	}

	static String username() {
		return DATABASE.username();
	}

	static String password() {
		return DATABASE.password();
	}

	/**
	 * @return the lease table of this test run
	 */
	String leaseTable() {
		return this.prefix + "_lease";
	}

	/**
	 * @return the candidates table of this test run
	 */
	String candidateTable() {
		return this.prefix + "_candidate";
	}

	/**
	 * @return the job runs table of this test run
	 */
	String jobRunsTable() {
		return this.prefix + "_job_runs";
	}

	/**
	 * @return the cluster-lock job's runs table of this test run
	 */
	String lockJobRunsTable() {
		return this.prefix + "_lock_job_runs";
	}

	/**
	 * Arguments that point the sample at this database and its own tables.
	 * @return command line arguments
	 */
	List<String> arguments() {
		return List.of("--spring.datasource.url=" + url(), "--spring.datasource.username=" + username(),
				"--spring.datasource.password=" + password(), "--leader-election.jdbc.table-name=" + leaseTable(),
				"--leader-election.jdbc.candidate-table-name=" + candidateTable(),
				"--sample.job-runs-table=" + jobRunsTable(), "--sample.lock-job-runs-table=" + lockJobRunsTable());
	}

	/**
	 * @return a template on this database, outside the applications under test
	 */
	JdbcTemplate jdbc() {
		return this.jdbc;
	}

	/**
	 * Every recorded job run, in the order they started.
	 * @return the runs
	 */
	List<Run> runs() {
		return runs(jobRunsTable());
	}

	/**
	 * Every recorded run of the cluster-lock job, in the order they started.
	 * @return the runs
	 */
	List<Run> lockJobRuns() {
		return runs(lockJobRunsTable());
	}

	private List<Run> runs(String table) {
		try {
			return this.jdbc.query(
					"SELECT id, node_id, term, started_at, finished_at FROM " + table + " ORDER BY started_at, id",
					(rs, row) -> new Run(rs.getLong("id"), rs.getString("node_id"), rs.getLong("term"),
							rs.getLong("started_at"), rs.getLong("finished_at")));
		}
		catch (BadSqlGrammarException ex) {
			// The sample creates its run tables at its first run.
			return List.of();
		}
	}

	/**
	 * How many runs a node recorded.
	 * @param nodeId the node
	 * @return the count
	 */
	int runsOf(String nodeId) {
		Integer count;
		try {
			count = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + jobRunsTable() + " WHERE node_id = ?",
					Integer.class, nodeId);
		}
		catch (BadSqlGrammarException ex) {
			// The sample creates its run tables at its first run.
			return 0;
		}
		return (count != null) ? count : 0;
	}

	/** Drop the tables of this test run (and nothing else). */
	void dropTables() {
		for (String table : List.of(jobRunsTable(), lockJobRunsTable(), leaseTable(), candidateTable(),
				leaseTable() + "_fence", leaseTable() + "_nodes")) {
			this.jdbc.execute("DROP TABLE IF EXISTS " + table);
		}
	}

	/**
	 * A row of the job runs table; times are database epoch milliseconds.
	 *
	 * @param id row id
	 * @param nodeId node that ran the job
	 * @param term term it ran under
	 * @param startedAt start
	 * @param finishedAt end
	 */
	record Run(long id, String nodeId, long term, long startedAt, long finishedAt) {
	}

}
