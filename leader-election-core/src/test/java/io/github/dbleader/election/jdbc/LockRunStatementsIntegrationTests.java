package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.test.TestDatabase;
import io.github.dbleader.test.WireStatements;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a run under a cluster lock costs, in statements the server runs (read off the
 * wire, {@link WireStatements}: transaction control and session settings count, whatever
 * sent them), as in the lock benchmark ({@code benchmarks/run --locks}): three nodes,
 * each with a pool for the lock statements and the application's pool for fenced work,
 * try the same lock for each trigger; the node that takes it runs a job that records
 * itself in a transaction fenced by the lock (a read of the database clock and an insert,
 * the benchmark job's two statements) and releases the lock; the two others find it
 * taken. Measured in steady state: every node has seen the lock's row and holds open
 * connections.
 */
class LockRunStatementsIntegrationTests {

	/** Issue 39: a run, all nodes, the job's two statements included. */
	private static final int MAX_STATEMENTS_PER_RUN = 10;

	/** Issue 39: what a fenced transaction adds to its work, on every database. */
	private static final int MAX_FENCED_RUN_OVERHEAD = 3;

	private static final int RUNS = 6;

	/** The job's record of a run, as the benchmark's. */
	private static final String RUN_COLUMNS = "node_id VARCHAR(64) NOT NULL, term BIGINT NOT NULL,"
			+ " started_at BIGINT NOT NULL, finished_at BIGINT NOT NULL";

	private static final LeaseTables TABLES = new LeaseTables("lockrun_lease", "lockrun_candidate");

	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB", "POSTGRESQL" })
	void aRunUnderAClusterLockCostsAtMostTenStatementsOverThreeNodes(TestDatabase database) throws Exception {
		SqlDialect dialect = SqlDialect.forName(database.platform());
		try (HikariDataSource direct = database.dataSource(1); WireStatements wire = WireStatements.through(database)) {
			database.dropTables(direct, TABLES.allTables().toArray(String[]::new));
			LeaseSchema.create(direct, dialect, TABLES);
			database.recreateTable(direct, "lockrun_job_runs", RUN_COLUMNS);
			List<Node> nodes = List.of(node(wire, dialect, "a"), node(wire, dialect, "b"), node(wire, dialect, "c"));
			List<Integer> fencedOverheads = new ArrayList<>();

			// Warm-up: every node takes the lock once (it sees the row, its pools
			// connect).
			WireStatements.Measurement cost = wire.measure(nodes.size(), RUNS,
					(i) -> fencedOverheads.add(run(nodes.get(i % nodes.size()), nodes, wire)));
			List<Integer> measured = fencedOverheads.subList(nodes.size(), fencedOverheads.size());
			System.out.printf("%s: %s%n  fenced transactions beyond their work: %s%n", database, cost, measured);
			assertThat(measured).as("statements a fenced transaction adds to its work's two")
				.allSatisfy((overhead) -> assertThat(overhead).isLessThanOrEqualTo(MAX_FENCED_RUN_OVERHEAD));
			assertThat(cost.perRun()).as("statements per run, three nodes, the job's two included (printed above)")
				.isLessThanOrEqualTo(MAX_STATEMENTS_PER_RUN);
		}
	}

	/**
	 * Issue 38: what a try of the permits of a lock costs, in statements the server runs,
	 * for 1, 3 and 10 permits, in steady state (every permit's row exists and this node
	 * has seen it): a take (one permit free) and a try that finds every permit held. They
	 * do not grow with the number of permits; a lock of one permit is the lock itself.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB", "POSTGRESQL" })
	void aTryOfAPermitCostsTheSameStatementsWhateverTheNumberOfPermits(TestDatabase database) throws Exception {
		SqlDialect dialect = freshTables(database);
		try (WireStatements wire = WireStatements.through(database)) {
			Node a = node(wire, dialect, "a");
			Node b = node(wire, dialect, "b");
			Map<Integer, List<Integer>> costs = new TreeMap<>();
			for (int permits : new int[] { 1, 3, 10 }) {
				String name = "permits" + permits;
				// Warm-up: each node takes and releases every permit once (it sees each
				// permit's row), then node a holds all but one.
				for (Node node : List.of(a, b)) {
					List<HeldLock> warmUp = new ArrayList<>();
					for (int i = 0; i < permits; i++) {
						warmUp.add(node.locks()
							.tryPermit(name, permits, Duration.ofSeconds(30), Duration.ZERO)
							.orElseThrow());
					}
					warmUp.forEach(HeldLock::release);
				}
				for (int i = 0; i < permits - 1; i++) {
					a.locks().tryPermit(name, permits, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
				}
				int before = wire.count();
				HeldLock taken = b.locks()
					.tryPermit(name, permits, Duration.ofSeconds(30), Duration.ZERO)
					.orElseThrow();
				int take = wire.count() - before;
				before = wire.count();
				assertThat(a.locks().tryPermit(name, permits, Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
				int refused = wire.count() - before;
				taken.release();
				costs.put(permits, List.of(take, refused));
			}
			System.out.printf("%s: statements per permit take and refused try, by number of permits: %s%n", database,
					costs);
			assertThat(costs.get(10)).as("statements for 10 permits and for 3 (printed above)").isEqualTo(costs.get(3));
			assertThat(costs.get(1).get(1)).as("a refused try, one permit or several").isEqualTo(costs.get(3).get(1));
			assertThat(costs.get(1).get(0)).as("a lock of one permit is the lock: one statement fewer")
				.isEqualTo(costs.get(3).get(0) - 1);
		}
	}

	/** Creates the lease tables afresh, off the wire. */
	private static SqlDialect freshTables(TestDatabase database) {
		SqlDialect dialect = SqlDialect.forName(database.platform());
		try (HikariDataSource direct = database.dataSource(1)) {
			database.dropTables(direct, TABLES.allTables().toArray(String[]::new));
			LeaseSchema.create(direct, dialect, TABLES);
		}
		return dialect;
	}

	/**
	 * One trigger: the winner takes the lock; while its run goes on, the two other nodes
	 * find the lock taken; the run records itself in a fenced transaction and releases.
	 * @return the statements the fenced transaction sent beyond its work's
	 */
	private static int run(Node winner, List<Node> nodes, WireStatements wire) {
		AtomicInteger fencedOverhead = new AtomicInteger();
		boolean ran;
		try {
			ran = winner.locks().runLocked("job", Duration.ofSeconds(30), Duration.ZERO, true, (lock) -> {
				for (Node other : nodes) {
					if (other != winner) {
						assertThat(other.locks().tryLock("job", Duration.ofSeconds(30), Duration.ZERO))
							.as("a try of %s while %s runs", other.id(), winner.id())
							.isEqualTo(Optional.empty());
					}
				}
				int before = wire.count();
				lock.runFenced((term) -> {
					Long startedAt = winner.jdbc().queryForObject("SELECT " + winner.clock(), Long.class);
					return winner.jdbc()
						.update("INSERT INTO lockrun_job_runs (node_id, term, started_at, finished_at)"
								+ " VALUES (?, ?, ?, " + winner.clock() + ")", winner.id(), term, startedAt);
				});
				fencedOverhead.set(wire.count() - before - 2);
			});
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		assertThat(ran).as("%s ran", winner.id()).isTrue();
		return fencedOverhead.get();
	}

	private static Node node(WireStatements wire, SqlDialect dialect, String id) {
		HikariDataSource application = wire.dataSource(2);
		JdbcLockRepository repository = new JdbcLockRepository(new JdbcStore(wire.dataSource(2),
				new JdbcTransactionManager(application), application, dialect, TABLES, Duration.ofSeconds(2)));
		return new Node(id, new ClusterLocks(repository, id), new JdbcTemplate(application),
				dialect.currentTimeMillis());
	}

	private record Node(String id, ClusterLocks locks, JdbcTemplate jdbc, String clock) {
	}

}
