package io.github.dbleader.benchmarks.jobruns;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The job runs table: one row per run with the node, a term (the fencing token where the
 * system has one, else 0), and start and end read from the database clock in epoch
 * milliseconds, so that runs of different nodes can be compared with each other.
 *
 * <p>
 * A run logs {@value #STARTED_MESSAGE} when its work begins: the harness watches for it
 * to freeze a node in the middle of a run.
 */
public class JobRunTable {

	/** Logged when a run's work begins. */
	public static final String STARTED_MESSAGE = "Job run started";

	/** The database clock in epoch milliseconds (MySQL and MariaDB). */
	public static final String NOW_MILLIS = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";

	private static final Pattern PLAIN_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

	private static final Logger logger = LoggerFactory.getLogger(JobRunTable.class);

	private final JdbcTemplate jdbc;

	private final String table;

	private final Duration jobDuration;

	/**
	 * Create the table if it is missing.
	 * @param jdbc the application's template; joins a surrounding transaction
	 * @param table table name, a plain identifier
	 * @param jobDuration how long each run works
	 */
	public JobRunTable(JdbcTemplate jdbc, String table, Duration jobDuration) {
		if (!PLAIN_IDENTIFIER.matcher(table).matches()) {
			throw new IllegalArgumentException("bench.job-runs-table '" + table + "' is not a plain identifier");
		}
		this.jdbc = jdbc;
		this.table = table;
		this.jobDuration = jobDuration;
		jdbc.execute("CREATE TABLE IF NOT EXISTS " + table + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, "
				+ "node_id VARCHAR(255) NOT NULL, term BIGINT NOT NULL, started_at BIGINT NOT NULL, "
				+ "finished_at BIGINT NOT NULL)");
	}

	/**
	 * Run the job once: read the database clock, work, and insert the row (whose end is
	 * the database clock at the insert).
	 * @param nodeId this node
	 * @param term the term the run belongs to, or 0
	 */
	public void run(String nodeId, long term) {
		work().ifPresent((startedAt) -> record(nodeId, term, startedAt));
	}

	/**
	 * The work of a run without its record: read the database clock and work, for a job
	 * that records the run apart from its work (in a fenced transaction of its own at the
	 * end of a long run).
	 * @return the start on the database clock, or empty if the work was interrupted
	 */
	public OptionalLong work() {
		Long startedAt = this.jdbc.queryForObject("SELECT " + NOW_MILLIS, Long.class);
		logger.info(STARTED_MESSAGE + " ({} ms of work)", this.jobDuration.toMillis());
		try {
			Thread.sleep(this.jobDuration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return OptionalLong.empty();
		}
		return OptionalLong.of(startedAt);
	}

	/**
	 * Insert the row of a run whose work is done; its end is the database clock now.
	 * @param nodeId this node
	 * @param term the term the run belongs to, or 0
	 * @param startedAt the start of its work ({@link #work()})
	 */
	public void record(String nodeId, long term, long startedAt) {
		this.jdbc.update("INSERT INTO " + this.table + " (node_id, term, started_at, finished_at) VALUES (?, ?, ?, "
				+ NOW_MILLIS + ")", nodeId, term, startedAt);
	}

}
