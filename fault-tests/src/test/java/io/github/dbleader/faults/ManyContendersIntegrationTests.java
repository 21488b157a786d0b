package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 6. Proves that many contenders make exactly one leader: {@value #CONTENDERS} election
 * services compete in one election for a minute (system property
 * {@code fault.contenders.seconds}), with the processes' timing (L = 3 s, R = 500 ms),
 * and the number of believers is sampled every {@value #SAMPLE_MILLIS} ms. Each contender
 * also runs the sample's fenced job (a row per run every 100 ms while it leads), so that
 * overlap and stale writes are checked on the database as for the processes.
 *
 * <p>
 * The contenders live in this JVM rather than in twenty processes, each with a pool of
 * its own (two connections, as the election's dedicated pool), its own node id, threads
 * and belief: twenty Spring Boot processes would need minutes of CPU to start on two
 * cores, and above all their belief could only be sampled over HTTP, one after the other,
 * not at one instant. Here {@link Election#isLeader()} of all of them is read within
 * microseconds. What they share is the JVM: a GC pause stops them all, as a pause of a
 * whole host would.
 *
 * <p>
 * It runs beside the suite's other scenarios (its tables are its own, and its minute is
 * mostly waiting), except the one that loads the database server on purpose.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(MixedWorkScenariosIntegrationTests.HEAVY_DATABASE_LOAD)
@ForkUse(ForkUse.Mode.SHARED)
class ManyContendersIntegrationTests {

	static final int CONTENDERS = 20;

	static final long SAMPLE_MILLIS = 10;

	private static final LeaseTables TABLES = new LeaseTables("fault_many_lease", "fault_many_candidate");

	private static final String RUNS_TABLE = "fault_many_job_runs";

	private final List<HikariDataSource> pools = new ArrayList<>();

	private final List<ElectionService> services = new ArrayList<>();

	private final List<Thread> jobs = new ArrayList<>();

	private LeaseMonitor monitor;

	private FaultDatabase database;

	@AfterEach
	void stopContenders() {
		this.jobs.forEach(Thread::interrupt);
		this.services.forEach(ElectionService::halt);
		this.pools.forEach(HikariDataSource::close);
		if (this.monitor != null) {
			this.monitor.close();
		}
		if (this.database != null) {
			this.database.closeClock();
		}
	}

	@Test
	void exactlyOneLeaderAtEverySampledInstant() throws Exception {
		this.database = FaultDatabase.fromEnvironment();
		Duration duration = Duration.ofSeconds(Long.getLong("fault.contenders.seconds", 60));
		recreateTables();
		this.monitor = new LeaseMonitor(this.database, TABLES.leaseTable());
		ElectionSettings settings = ElectionSettings.of(SampleNode.LEASE, SampleNode.RENEW);
		AtomicInteger transitions = new AtomicInteger();
		AtomicInteger failedHeartbeats = new AtomicInteger();
		LeadershipListener counting = new LeadershipListener() {

			@Override
			public void granted(String election, String nodeId, long term) {
				transitions.incrementAndGet();
			}

			@Override
			public void revoked(String election, String nodeId, long term, RevocationReason reason) {
				transitions.incrementAndGet();
			}

			@Override
			public void heartbeat(String nodeId, int elections, boolean succeeded, Duration took) {
				if (!succeeded) {
					failedHeartbeats.incrementAndGet();
				}
			}

		};
		List<Election> elections = new ArrayList<>();
		for (int i = 1; i <= CONTENDERS; i++) {
			HikariDataSource pool = pool("contender-" + i, settings);
			this.pools.add(pool);
			ElectionService service = new ElectionService(
					new JdbcLeaseRepository(pool, SqlDialect.MYSQL, TABLES, settings.statementTimeout()), settings,
					String.format("contender-%02d", i), counting);
			this.services.add(service);
			elections.add(service.election(FaultDatabase.ELECTION));
		}
		Scenario scenario = new Scenario("6. " + CONTENDERS + " contenders for " + duration.toSeconds() + " s", null,
				this.database);
		this.services.forEach(ElectionService::start);
		for (int i = 0; i < CONTENDERS; i++) {
			startJob(elections.get(i), new JdbcTemplate(this.pools.get(i)));
		}
		long samples = 0;
		long noLeader = 0;
		long twoOrMore = 0;
		long longestGap = 0;
		long gap = 0;
		boolean elected = false;
		long end = System.nanoTime() + duration.toNanos();
		Throwable failure = null;
		try {
			while (System.nanoTime() - end < 0) {
				int believers = 0;
				for (Election election : elections) {
					if (election.isLeader()) {
						believers++;
					}
				}
				elected |= believers > 0;
				if (elected) {
					samples++;
					if (believers == 0) {
						noLeader++;
						gap += SAMPLE_MILLIS;
						longestGap = Math.max(longestGap, gap);
					}
					else {
						gap = 0;
					}
					if (believers > 1) {
						twoOrMore++;
					}
				}
				Thread.sleep(SAMPLE_MILLIS); // the sampling period
			}
			this.jobs.forEach(Thread::interrupt);
			scenario.detail(samples + " samples every " + SAMPLE_MILLIS + " ms after the first election: " + twoOrMore
					+ " with two or more leaders, " + noLeader + " with none (longest gap " + longestGap + " ms); "
					+ failedHeartbeats.get() + " failed heartbeats; " + transitions.get() + " transitions");
			scenario.verifyRuns(RUNS_TABLE, this.monitor, transitions.get());
			assertThat(elected).as("a leader was elected among %d contenders", CONTENDERS).isTrue();
			assertThat(twoOrMore).as("I2/I3 at most one leader at every sampled instant: samples with two or more")
				.isZero();
			assertThat(noLeader).as("exactly one leader at every sampled instant: samples with none").isZero();
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			FaultReport.add(scenario.entry(failure));
		}
	}

	private void recreateTables() throws SQLException {
		try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS " + TABLES.leaseTable());
			statement.execute("DROP TABLE IF EXISTS " + TABLES.candidateTable());
			statement.execute("DROP TABLE IF EXISTS " + TABLES.fenceTable());
			statement.execute("DROP TABLE IF EXISTS " + TABLES.nodesTable());
			statement.execute("DROP TABLE IF EXISTS " + RUNS_TABLE);
			statement.execute("CREATE TABLE " + RUNS_TABLE + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, "
					+ "election VARCHAR(128) NOT NULL, node_id VARCHAR(255) NOT NULL, term BIGINT NOT NULL, "
					+ "started_at BIGINT NOT NULL, finished_at BIGINT NOT NULL)");
		}
		try (HikariDataSource schema = pool("schema", ElectionSettings.of(SampleNode.LEASE, SampleNode.RENEW))) {
			LeaseSchema.create(schema, SqlDialect.MYSQL, TABLES);
		}
	}

	/** A pool like the election's dedicated one: two connections, a bounded wait. */
	private HikariDataSource pool(String name, ElectionSettings settings) {
		HikariDataSource pool = new HikariDataSource();
		pool.setPoolName(name);
		pool.setJdbcUrl(this.database.url());
		pool.setUsername(this.database.username());
		pool.setPassword(this.database.password());
		pool.setMaximumPoolSize(2);
		pool.setMinimumIdle(1);
		pool.setConnectionTimeout(Math.max(250, settings.statementTimeout().toMillis()));
		pool.setInitializationFailTimeout(-1);
		return pool;
	}

	private static void work() {
		try {
			Thread.sleep(20); // the work, as the sample's job-duration
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The sample's job: while leading, a fenced row every 100 ms. */
	private void startJob(Election election, JdbcTemplate jdbc) {
		String now = SqlDialect.MYSQL.currentTimeMillis();
		Thread job = new Thread(() -> {
			while (!Thread.currentThread().isInterrupted()) {
				try {
					if (election.isLeader()) {
						election.runFenced((term) -> {
							Long startedAt = jdbc.queryForObject("SELECT " + now, Long.class);
							work();
							jdbc.update(
									"INSERT INTO " + RUNS_TABLE + " (election, node_id, term, started_at, "
											+ "finished_at) VALUES (?, ?, ?, ?, " + now + ")",
									election.name(), election.nodeId(), term, startedAt);
							return null;
						});
					}
					Thread.sleep(SampleNode.JOB_INTERVAL.toMillis()); // the job interval
				}
				catch (NotLeaderException ex) {
					// Leadership ended between the check and the fence: nothing written.
				}
				catch (DataAccessException ex) {
					// The fenced transaction failed and rolled back: nothing written.
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "job-" + election.nodeId());
		job.setDaemon(true);
		this.jobs.add(job);
		job.start();
	}

}
