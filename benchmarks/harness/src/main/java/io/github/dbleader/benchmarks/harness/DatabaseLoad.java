package io.github.dbleader.benchmarks.harness;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database side of the load benchmark, the same as the fault suite's M2
 * ({@code MixedWorkScenariosIntegrationTests.aMinuteOfHeavyDatabaseLoadChangesNoHolder}):
 * two long transactions that keep the rows of a 5,000-row table locked and rewrite them
 * every 500 ms (holding the purge of old row versions back), and two sessions that run
 * CPU-heavy {@code SELECT BENCHMARK(2000000, SHA2(RAND(), 256))} queries without pause,
 * from {@link #start} to {@link #close}. The applications' pools are held by their own
 * hook ({@link Node#holdPool}).
 */
final class DatabaseLoad implements AutoCloseable {

	private static final String TABLE = "bench_load";

	private final RunSettings settings;

	private final AtomicBoolean loading = new AtomicBoolean(true);

	private final AtomicLong heavyQueries = new AtomicLong();

	private final ExecutorService threads = Executors.newFixedThreadPool(4);

	private DatabaseLoad(RunSettings settings) {
		this.settings = settings;
	}

	/**
	 * Fill the load table and start the four sessions.
	 * @param settings the run's settings (the server and its administrator)
	 * @return the running load
	 * @throws SQLException if the table cannot be filled
	 */
	static DatabaseLoad start(RunSettings settings) throws SQLException {
		DatabaseLoad load = new DatabaseLoad(settings);
		try (Connection connection = load.connect(); Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS " + TABLE);
			statement.execute("CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, payload VARCHAR(200))");
			StringBuilder rows = new StringBuilder("INSERT INTO " + TABLE + " (id, payload) VALUES ");
			for (int id = 0; id < 5000; id++) {
				rows.append((id == 0) ? "" : ", ").append('(').append(id).append(", REPEAT('x', 200))");
			}
			statement.execute(rows.toString());
		}
		for (int i = 0; i < 2; i++) {
			int half = i;
			load.threads.execute(() -> load.longTransaction(half));
			load.threads.execute(load::runHeavyQueries);
		}
		return load;
	}

	/**
	 * @return the CPU-heavy queries completed so far
	 */
	long heavyQueries() {
		return this.heavyQueries.get();
	}

	private Connection connect() throws SQLException {
		return DriverManager.getConnection(this.settings.jdbcUrl() + "/" + Database.NAME, this.settings.adminUser(),
				this.settings.adminPassword());
	}

	/**
	 * A transaction that keeps half of the load table's rows locked, and rewrites them,
	 * for the whole load.
	 */
	private void longTransaction(int half) {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			while (this.loading.get()) {
				statement.executeUpdate("UPDATE " + TABLE + " SET payload = REVERSE(payload) WHERE id % 2 = " + half);
				Thread.sleep(500);
			}
			connection.rollback();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** CPU-heavy queries, one after another, on a session of their own. */
	private void runHeavyQueries() {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			while (this.loading.get()) {
				statement.executeQuery("SELECT BENCHMARK(2000000, SHA2(RAND(), 256))").close();
				this.heavyQueries.incrementAndGet();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Stop the sessions (each finishes its statement) and drop the table. */
	@Override
	public void close() throws Exception {
		this.loading.set(false);
		this.threads.shutdown();
		if (!this.threads.awaitTermination(60, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The load sessions did not stop within 60 s");
		}
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS " + TABLE);
		}
	}

}
