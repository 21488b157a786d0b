package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mixed-work scenarios on the MySQL-protocol database: M1
 * ({@link AbstractMixedWorkScenariosIntegrationTests}), then M2 on the same processes,
 * whose load is MySQL's SQL. Nothing runs beside it that it does not measure: it holds
 * {@value #HEAVY_DATABASE_LOAD}, which {@link ManyContendersIntegrationTests} (the one
 * scenario that runs beside the others) takes too.
 */
@ResourceLock(MixedWorkScenariosIntegrationTests.HEAVY_DATABASE_LOAD)
@ForkUse(ForkUse.Mode.ALONE)
class MixedWorkScenariosIntegrationTests extends AbstractMixedWorkScenariosIntegrationTests {

	/** The lock that keeps other scenarios away from M2's load. */
	static final String HEAVY_DATABASE_LOAD = "heavy-database-load";

	/** How long M2 loads the database. */
	private static final Duration LOAD = Duration.ofSeconds(60);

	MixedWorkScenariosIntegrationTests() {
		super(TestDatabase.MYSQL);
	}

	/**
	 * M2. A minute of heavy load on the database from the application's side, with the
	 * mix of M1 still running: every node's application pool held by slow queries, two
	 * long transactions that keep rows locked and the purge of old row versions behind,
	 * and two sessions running CPU-heavy queries without pause. Statements still complete
	 * within the statement timeout, so no election or partition changes holder.
	 */
	@Test
	@Order(2)
	void aMinuteOfHeavyDatabaseLoadChangesNoHolder() throws Exception {
		List<SampleNode> nodes = this.cluster.live();
		Start start = Start.of(this.database, nodes);
		AtomicBoolean loading = new AtomicBoolean(true);
		AtomicLong heavyQueries = new AtomicLong();
		ExecutorService load = Executors.newFixedThreadPool(4);
		try (Connection setup = this.database.connect(); Statement statement = setup.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS fault_load");
			statement.execute("CREATE TABLE fault_load (id INT PRIMARY KEY, payload VARCHAR(200))");
			StringBuilder rows = new StringBuilder("INSERT INTO fault_load (id, payload) VALUES ");
			for (int id = 0; id < 5000; id++) {
				rows.append((id == 0) ? "" : ", ").append('(').append(id).append(", REPEAT('x', 200))");
			}
			statement.execute(rows.toString());
		}
		for (int i = 0; i < 2; i++) {
			int half = i;
			load.execute(() -> longTransaction(loading, half));
			load.execute(() -> heavyQueries(loading, heavyQueries));
		}
		try {
			for (int held = 0; held < LOAD.toSeconds(); held += 30) {
				for (SampleNode node : nodes) {
					node.holdApplicationConnections(SampleNode.POOL_SIZE, 30);
				}
				Thread.sleep(Math.min(30, LOAD.toSeconds() - held) * 1000);
			}
		}
		finally {
			loading.set(false);
			load.shutdown();
			assertThat(load.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		}
		List<String> violations = new ArrayList<>();
		StringBuilder details = new StringBuilder();
		for (SampleNode node : nodes) {
			violations.addAll(start.lines(node, "revoked from", "leadership granted"));
			double[] since = start.roundsSince(node);
			details.append(node.id())
				.append(": ")
				.append((long) since[0])
				.append(" rounds, ")
				.append((long) since[1])
				.append(" failed, ")
				.append((long) since[2])
				.append(" slow; ");
		}
		List<JobRuns.Run> runs = start.lockRuns(this.database, violations);
		String verdict = violations.isEmpty() ? "pass" : "FAIL: " + String.join("; ", violations);
		FaultReport.add(new FaultReport.Entry(
				"M2. heavy database load (" + LOAD + "): pools held, long transactions, " + heavyQueries.get()
						+ " CPU-heavy queries",
				verdict, "none", JobRuns.overlaps(runs).stream().mapToLong(JobRuns.Overlap::millis).sum(), 0, 0,
				runs.size() + " lock runs; " + details));
		assertThat(violations).as("changes of holder under load").isEmpty();
	}

	/**
	 * A transaction that keeps half of the load table's rows locked, and rewrites them,
	 * for the whole load.
	 */
	private void longTransaction(AtomicBoolean loading, int half) {
		try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			while (loading.get()) {
				statement.executeUpdate("UPDATE fault_load SET payload = REVERSE(payload) WHERE id % 2 = " + half);
				Thread.sleep(500);
			}
			connection.rollback();
		}
		catch (SQLException | InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** CPU-heavy queries, one after another, on a session of their own. */
	private void heavyQueries(AtomicBoolean loading, AtomicLong count) {
		try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
			while (loading.get()) {
				statement.executeQuery("SELECT BENCHMARK(2000000, SHA2(RAND(), 256))").close();
				count.incrementAndGet();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
