package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Not a test: a measurement of one node's heartbeat statements at scale on MariaDB, run
 * on demand only ({@code -Dit.test=HeartbeatScaleMeasurement}; its name matches neither
 * Surefire's nor Failsafe's includes). {@code -Dscale.elections} (default 100000),
 * {@code -Dscale.rounds} (default 20), {@code -Dscale.driver} (MYSQL or MARIADB),
 * {@code -Dscale.reuse} (keep the last run's tables). Three nodes each hold a third of
 * the elections; node a's refresh (which renews its leases) and read are timed (as the
 * heartbeat reads, what changed and a slice, with and without composing every lease, and
 * whole), and the whole read's SQL is split into the server's work, the transfer and the
 * mapping.
 */
class HeartbeatScaleMeasurement {

	private static final LeaseTables TABLES = new LeaseTables("scale_lease", "scale_candidate");

	private static final Duration LEASE = Duration.ofHours(1);

	@Test
	void measure() throws Exception {
		int elections = Integer.getInteger("scale.elections", 100_000);
		int rounds = Integer.getInteger("scale.rounds", 20);
		TestDatabase database = TestDatabase.valueOf(System.getProperty("scale.driver", "MYSQL"));
		try (HikariDataSource dataSource = database.dataSource(4)) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			seed(database, dataSource, jdbc, elections);
			JdbcLeaseRepository repository = new JdbcLeaseRepository(dataSource, SqlDialect.MYSQL, TABLES,
					Duration.ofSeconds(60));
			repository.heartbeat("a", "a-1", LEASE, -1);
			String findAll = LeaseRows.selectElections(SqlDialect.MYSQL, TABLES.leaseTable(), TABLES.nodesTable(),
					SqlDialect.MYSQL.serverIdentity()) + " WHERE l.election_name IN (SELECT election_name FROM "
					+ TABLES.candidateTable() + " WHERE node_id = ? AND instance_id = ?)";
			System.out.printf("%n=== %,d elections, driver %s ===%n", elections, database);
			jdbc.queryForList("EXPLAIN " + findAll.replaceFirst("\\?", "'a'").replaceFirst("\\?", "'a-1'"))
				.forEach((row) -> System.out.println("EXPLAIN findAll: " + row));
			// Warm up.
			for (int i = 0; i < 3; i++) {
				repository.heartbeat("a", "a-1", LEASE, -1);
				repository.findAll("a", "a-1");
			}
			measure("refresh (heartbeat), which renews every lease a holds", rounds,
					() -> time(() -> repository.heartbeat("a", "a-1", LEASE, -1)));
			measure("readAll: what changed and a slice, no lease composed (as the heartbeat reads)", rounds,
					() -> time(() -> repository.readAll("a", "a-1")));
			measure("findAll: the same read, every lease composed", rounds,
					() -> time(() -> repository.findAll("a", "a-1")));
			JdbcLeaseRepository whole = new JdbcLeaseRepository(dataSource, SqlDialect.MYSQL, TABLES,
					Duration.ofSeconds(60));
			whole.viewLimits(Integer.MAX_VALUE, LeaseView.RESCANNED_PER_ROUND, Integer.MAX_VALUE);
			whole.findAll("a", "a-1");
			measure("findAll: whole, every lease of the node", rounds, () -> time(() -> whole.findAll("a", "a-1")));
			measure("findAll SQL, rows iterated, nothing read", rounds, () -> time(() -> jdbc.query(findAll, (rs) -> {
			}, "a", "a-1")));
			measure("findAll SQL, COUNT(*) at the server", rounds, () -> time(
					() -> jdbc.queryForObject("SELECT COUNT(*) FROM (" + findAll + ") x", Long.class, "a", "a-1")));
			measure("findAll without the candidates join (all lease rows)", rounds,
					() -> time(() -> jdbc.query(
							LeaseRows.select(SqlDialect.MYSQL, TABLES.leaseTable(), SqlDialect.MYSQL.serverIdentity()),
							(rs, row) -> LeaseRows.map(rs))));
			measure("read of (election, version) only, same join", rounds,
					() -> time(
							() -> jdbc.query(
									"SELECT election_name, version FROM " + TABLES.leaseTable()
											+ " WHERE election_name IN (SELECT election_name FROM "
											+ TABLES.candidateTable() + " WHERE node_id = ? AND instance_id = ?)",
									(rs) -> {
										rs.getString(1);
										rs.getLong(2);
									}, "a", "a-1")));
			List<LeaseState> states = repository.findAll("a", "a-1");
			measure("mapping alone is inside the above; rows", 1, () -> states.size());
			jdbc.queryForList("ANALYZE FORMAT=JSON " + findAll.replaceFirst("\\?", "'a'").replaceFirst("\\?", "'a-1'"))
				.forEach((row) -> System.out.println("ANALYZE findAll: " + row));
		}
	}

	private static void seed(TestDatabase database, HikariDataSource dataSource, JdbcTemplate jdbc, int elections) {
		if (Boolean.getBoolean("scale.reuse")) {
			// The tables of the last run, if they hold as many elections.
			return;
		}
		database.dropTables(dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(dataSource, SqlDialect.MYSQL, TABLES);
		String now = SqlDialect.MYSQL.now();
		String seq = "seq_1_to_" + elections;
		// One third each: a, b, c; every node a candidate of every election.
		jdbc.update("INSERT INTO " + TABLES.leaseTable() + " (" + LeaseRows.COLUMNS
				+ ", server_identity, leader_instance) SELECT CONCAT('tenant-', seq), ELT(seq MOD 3 + 1, 'a', 'b', 'c'), "
				+ now + ", 1, " + now + ", " + now + ", " + now + " + 3600000, NULL, FALSE, NULL, "
				+ SqlDialect.MYSQL.serverIdentity() + ", ELT(seq MOD 3 + 1, 'a-1', 'b-1', 'c-1') FROM " + seq);
		jdbc.update("INSERT INTO " + TABLES.fenceTable() + " (election_name, leader_id, term) SELECT election_name,"
				+ " leader_id, term FROM " + TABLES.leaseTable());
		for (String node : List.of("a", "b", "c")) {
			jdbc.update("INSERT INTO " + TABLES.candidateTable()
					+ " (election_name, node_id, instance_id, first_seen, last_seen) SELECT CONCAT('tenant-', seq), ?, ?, "
					+ now + ", " + now + " FROM " + seq, node, node + "-1");
		}
		jdbc.execute("ANALYZE TABLE " + TABLES.leaseTable() + ", " + TABLES.candidateTable());
	}

	private static long time(Runnable runnable) {
		long start = System.nanoTime();
		runnable.run();
		return System.nanoTime() - start;
	}

	private static void measure(String what, int rounds, LongSupplier nanos) {
		long[] samples = new long[rounds];
		for (int i = 0; i < rounds; i++) {
			samples[i] = nanos.getAsLong();
		}
		Arrays.sort(samples);
		if (rounds == 1) {
			System.out.printf("%-55s %,d%n", what, samples[0]);
			return;
		}
		System.out.printf("%-55s p50 %7.1f ms  p90 %7.1f ms  max %7.1f ms  (n=%d)%n", what, samples[rounds / 2] / 1e6,
				samples[(int) (rounds * 0.9)] / 1e6, samples[rounds - 1] / 1e6, rounds);
	}

}
