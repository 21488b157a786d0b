package io.github.dbleader.election.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * I9 on each real database: no statement of a heartbeat round waits on a row lock that
 * application work holds. Fenced transactions of a cluster lock (its lease row), of
 * another node's election or partition and of one of this node's own elections (their
 * fence rows) stay open while a whole round runs: the refresh of the node's session
 * (which renews most of the table), join, read, a take-over with and without a session,
 * batched take-over, hand-over and yield (which skip a row whose fence a fenced
 * transaction holds), a hand-over request and a purge. Each statement the round sent is
 * then explained, so that a later change of the SQL that loses the key path fails here
 * even where the optimizer happens to pick it today.
 */
class HeartbeatStatementsIntegrationTests {

	private static final LeaseTables TABLES = new LeaseTables("hb_test_lease", "hb_test_candidate");

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final int ELECTIONS = 10;

	private final List<SentStatement> sent = new CopyOnWriteArrayList<>();

	private HikariDataSource dataSource;

	@AfterEach
	void close() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aHeartbeatRoundNeverWaitsOnFencedWorkAndReachesEveryRowByKey(TestDatabase database) throws Exception {
		SqlDialect dialect = SqlDialect.forName(database.platform());
		this.dataSource = database.dataSource(database.url(), 6);
		database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(this.dataSource, dialect, TABLES);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		JdbcLeaseRepository b = new JdbcLeaseRepository(this.dataSource, dialect, TABLES, Duration.ofSeconds(1));
		JdbcLeaseRepository a = new JdbcLeaseRepository(new RecordingDataSource(this.dataSource, this.sent), dialect,
				TABLES, Duration.ofSeconds(1));

		// Node a leads most of the table; b leads one election and holds a cluster lock.
		Map<String, Long> held = new LinkedHashMap<>();
		List<String> elections = new ArrayList<>();
		for (int i = 0; i < ELECTIONS; i++) {
			elections.add("e" + i);
		}
		a.heartbeat("a", "a-1", LEASE, -1);
		a.join("a", "a-1", elections);
		for (String election : elections) {
			assertThat(a.create(election, "a", LEASE)).isTrue();
			held.put(election, a.find(election).orElseThrow().term());
		}
		assertThat(b.create("b0", "b", LEASE)).isTrue();
		long b0Term = b.find("b0").orElseThrow().term();
		assertThat(b.create("lock:job", "b", LEASE)).isTrue();
		long lockTerm = b.find("lock:job").orElseThrow().term();
		// Expired, for a's take-over; and an unused lease and a gone node, for the purge.
		assertThat(b.create("free", "b", Duration.ofMillis(1))).isTrue();
		assertThat(b.create("old", "b", Duration.ofMillis(1))).isTrue();
		jdbc.update(
				"UPDATE " + TABLES.leaseTable() + " SET expires_at = expires_at - 3600000 WHERE election_name = 'old'");
		b.heartbeat("gone", "gone-1", LEASE, -1);
		b.join("gone", "gone-1", List.of("b0"));
		// A lease of "gone", whose session runs out: a's take-over writes the session's
		// row.
		assertThat(b.create("dead", "gone", Duration.ofMillis(1))).isTrue();
		jdbc.update("UPDATE " + TABLES.nodesTable()
				+ " SET last_seen = last_seen - 3600000, expires_at = 0 WHERE node_id = 'gone'");
		LeaseObservation free = LeaseObservation.of(b.find("free").orElseThrow());
		LeaseObservation dead = LeaseObservation.of(b.find("dead").orElseThrow());
		assertThat(dead.holderVersion()).as("the lease lives on gone's session").isNotNegative();
		// Expired too, for a's batched take-over; the fence row of "stuck" stays held by
		// the
		// deposed holder's fenced transaction, which the batch must skip, not wait for.
		assertThat(b.create("free2", "b", Duration.ofMillis(1))).isTrue();
		assertThat(b.create("stuck", "b", Duration.ofMillis(1))).isTrue();
		Map<String, LeaseObservation> batch = Map.of("free2", LeaseObservation.of(b.find("free2").orElseThrow()),
				"stuck", LeaseObservation.of(b.find("stuck").orElseThrow()), "b0",
				LeaseObservation.of(b.find("b0").orElseThrow()));
		long stuckTerm = b.find("stuck").orElseThrow().term();

		List<OpenWork> work = new ArrayList<>();
		try {
			String fence = dialect.fence(TABLES.fenceTable(), TABLES.leaseTable(), TABLES.nodesTable());
			work.add(OpenWork.begin(this.dataSource, fence, "lock:job", "b", lockTerm));
			work.add(OpenWork.begin(this.dataSource, fence, "b0", "b", b0Term));
			work.add(OpenWork.begin(this.dataSource, fence, "e0", "a", held.get("e0")));
			work.add(OpenWork.hold(this.dataSource, fence, "stuck", "b", stuckTerm));
			this.sent.clear();

			// One round of node a while all of that work stays open: each would fail its
			// one-second timeout if it waited. The refresh of a's session renews its
			// leases.
			assertThat(a.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
			a.join("a", "a-1", elections);
			assertThat(a.findAll("a", "a-1")).hasSize(ELECTIONS)
				.allSatisfy((lease) -> assertThat(lease.holderVersion()).isNotNegative());
			assertThat(a.takeOver("free", "a", free, LEASE)).isTrue();
			assertThat(a.takeOver("dead", "a", dead, LEASE)).isTrue();
			assertThat(a.takeOverAll("a", batch, LEASE)).extracting(LeaseState::election).containsExactly("free2");
			// Batched creation of new elections: their rows and fence rows, by key.
			assertThat(a.createAll("a", List.of("new1", "new0"), LEASE)).extracting(LeaseState::election)
				.containsExactlyInAnyOrder("new0", "new1");
			// Batched hand-over and yield: e0's fence is held by a's own fenced work,
			// skipped.
			assertThat(a.handOverAll("a", Map.of("e2", held.get("e2"), "e0", held.get("e0")), "b", LEASE))
				.extracting(LeaseState::election)
				.containsExactly("e2");
			assertThat(a.yieldAll("a", Map.of("e3", held.get("e3"), "e0", held.get("e0"))))
				.extracting(LeaseState::election)
				.containsExactly("e3");
			assertThat(a.requestHandover("e1", "b")).isTrue();
			// Leaving the elections this instance does not run, after it took the node id
			// over.
			a.leaveOtherElections("a", "a-1", elections.subList(0, ELECTIONS - 1));
			// The first purge finds the gone node's row stale, the second deletes it,
			// unchanged.
			a.purge(Duration.ofMinutes(1));
			a.purge(Duration.ofMinutes(1));
		}
		finally {
			work.forEach(OpenWork::end);
		}
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLES.candidateTable() + " WHERE node_id = 'a'",
				Integer.class))
			.as("a's candidacies after leaving one election")
			.isEqualTo(ELECTIONS - 1);
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLES.leaseTable() + " WHERE election_name = 'old'",
				Integer.class))
			.as("unused lease purged")
			.isZero();
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLES.fenceTable() + " WHERE election_name = 'old'",
				Integer.class))
			.as("its fence row purged")
			.isZero();
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLES.nodesTable() + " WHERE node_id = 'gone'",
				Integer.class))
			.as("gone node purged")
			.isZero();
		assertThat(jdbc.queryForObject(
				"SELECT COUNT(*) FROM " + TABLES.leaseTable() + " WHERE election_name = 'lock:job'", Integer.class))
			.as("lock rows are never purged")
			.isOne();

		List<SentStatement> locking = this.sent.stream().filter(SentStatement::locksRows).toList();
		assertThat(locking).as("locking statements of the round").isNotEmpty();
		for (SentStatement statement : locking) {
			assertThat(PlanCheck.scans(database, jdbc, statement))
				.as("%s%nparameters %s", statement.sql(), statement.parameters())
				.isEmpty();
		}
	}

	/**
	 * A fenced transaction held open on its own connection, as a running job holds it.
	 */
	private record OpenWork(Connection connection, int held) {

		static OpenWork begin(DataSource dataSource, String fenceStatement, String election, String node, long term)
				throws Exception {
			OpenWork work = hold(dataSource, fenceStatement, election, node, term);
			assertThat(work.held()).as("fence of %s held", election).isOne();
			return work;
		}

		/**
		 * Lock the fence row whether or not the check passes, as a deposed holder's
		 * transaction does.
		 */
		static OpenWork hold(DataSource dataSource, String fenceStatement, String election, String node, long term)
				throws Exception {
			Connection connection = dataSource.getConnection();
			connection.setAutoCommit(false);
			Integer held = new NamedParameterJdbcTemplate(new SingleConnectionDataSource(connection, true))
				.queryForObject(fenceStatement,
						new MapSqlParameterSource().addValue("election", election)
							.addValue("node", node)
							.addValue("term", term)
							.addValue("seconds", 60),
						(rs, row) -> rs.getInt(1));
			return new OpenWork(connection, (held != null) ? held : 0);
		}

		void end() {
			try (Connection connection = this.connection) {
				connection.rollback();
				connection.setAutoCommit(true);
			}
			catch (java.sql.SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	/** A statement as sent: its SQL and its parameters by index. */
	record SentStatement(String sql, List<Object> parameters) {

		boolean locksRows() {
			String start = this.sql.stripLeading().toUpperCase(Locale.ROOT);
			return start.startsWith("UPDATE") || start.startsWith("DELETE")
					|| (start.startsWith("INSERT") && start.contains(" SELECT ")) || start.contains(" FOR UPDATE");
		}

	}

	/**
	 * Finds the parts of a statement's plan that read a table other than by key: MySQL
	 * and MariaDB's access types {@code ALL} and {@code index}; PostgreSQL's sequential
	 * scans, with sequential scans made a last resort so that only a statement without a
	 * key path shows one; H2's table scans.
	 */
	static final class PlanCheck {

		private static final Set<String> MYSQL_KEY_ACCESS = Set.of("system", "const", "eq_ref", "ref", "range",
				"unique_subquery", "index_subquery", "ref_or_null");

		/**
		 * The query of an {@code INSERT ... SELECT}, whose plan is the statement's reads
		 * (the rows it inserts go in by key; every parameter is in the query): MariaDB
		 * 10.11.5, the embedded server, fails {@code EXPLAIN} of the whole statement
		 * ("Column count doesn't match value count") where 10.11.19 explains it; other
		 * statements as they are.
		 */
		static String explainable(String sql) {
			int select = sql.indexOf(" SELECT ");
			if (!sql.stripLeading().startsWith("INSERT") || select < 0) {
				return sql;
			}
			int end = sql.lastIndexOf(" ON DUPLICATE KEY UPDATE ");
			return sql.substring(select + 1, (end > select) ? end : sql.length());
		}

		static List<String> scans(TestDatabase database, JdbcTemplate jdbc, SentStatement statement) {
			Object[] args = statement.parameters().toArray();
			return switch (database.platform()) {
				// A leading MariaDB executable comment (a per-statement setting) goes
				// before the EXPLAIN.
				case "mysql" -> jdbc
					.query(explainable(statement.sql()).replaceFirst("^(/\\*M!.*?\\*/ )?", "$1EXPLAIN "), (rs, row) -> {
						String type = rs.getString("type");
						String table = rs.getString("table");
						// <derivedN>, <unionM,N>: the server's own temporary table of a
						// statement's
						// parameters (the elections a join inserts), no stored row to
						// lock.
						return (type == null || MYSQL_KEY_ACCESS.contains(type) || table == null
								|| table.startsWith("<")) ? null : table + ": " + type;
					}, args)
					.stream()
					.filter((scan) -> scan != null)
					.toList();
				case "postgresql" -> jdbc.execute((ConnectionCallback<List<String>>) (connection) -> {
					try (var off = connection.createStatement()) {
						off.execute("SET enable_seqscan = off");
					}
					try {
						List<String> scans = new ArrayList<>();
						try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + statement.sql())) {
							for (int i = 0; i < args.length; i++) {
								explain.setObject(i + 1, args[i]);
							}
							try (var rs = explain.executeQuery()) {
								while (rs.next()) {
									if (rs.getString(1).contains("Seq Scan")) {
										scans.add(rs.getString(1).trim());
									}
								}
							}
						}
						return scans;
					}
					finally {
						try (var on = connection.createStatement()) {
							on.execute("RESET enable_seqscan");
						}
					}
				});
				default -> jdbc.query("EXPLAIN " + statement.sql(), (rs, row) -> rs.getString(1), args)
					.stream()
					.flatMap((plan) -> plan.lines())
					.filter((line) -> line.contains("tableScan"))
					.toList();
			};
		}

	}

	/** Records every prepared statement that a connection of it executes. */
	static final class RecordingDataSource extends DelegatingDataSource {

		private final List<SentStatement> sent;

		RecordingDataSource(DataSource target, List<SentStatement> sent) {
			super(target);
			this.sent = sent;
		}

		@Override
		public Connection getConnection() throws java.sql.SQLException {
			Connection connection = super.getConnection();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						Object result = invoke(method, connection, args);
						if (result instanceof PreparedStatement statement
								&& method.getName().equals("prepareStatement")) {
							return recording(statement, (String) args[0]);
						}
						return result;
					});
		}

		private PreparedStatement recording(PreparedStatement statement, String sql) {
			Map<Integer, Object> parameters = new TreeMap<>();
			return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { PreparedStatement.class }, (proxy, method, args) -> {
						String name = method.getName();
						if (name.startsWith("set") && args != null && args.length >= 2
								&& args[0] instanceof Integer index) {
							parameters.put(index, name.equals("setNull") ? null : args[1]);
						}
						if (name.startsWith("execute")) {
							this.sent.add(new SentStatement(sql, new ArrayList<>(parameters.values())));
						}
						return invoke(method, statement, args);
					});
		}

		private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

	}

}
