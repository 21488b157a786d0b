package io.github.dbleader.election.jdbc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * What {@link JdbcLeaseRepository} does on each real database beyond the repository
 * contract, which {@code JdbcLeaseRepositoryContract} runs on each (and the test double
 * passes too): its tables and their earlier snapshots, the rows its statements write and
 * delete, what they cost, the fenced transaction's commit and session, the names the
 * tables cannot hold, and the drivers' quirks.
 */
class JdbcLeaseRepositoryIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(5);

	private static final Duration MOMENT = Duration.ofMillis(1);

	private static final LeaseTables TABLES = new LeaseTables("repo_test_lease", "repo_test_candidate");

	private HikariDataSource dataSource;

	@AfterEach
	void close() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	private JdbcLeaseRepository repository(TestDatabase database) {
		return repository(database, database.url());
	}

	private JdbcLeaseRepository repository(TestDatabase database, String url) {
		this.dataSource = database.dataSource(url, 4);
		database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(this.dataSource, SqlDialect.forName(database.platform()), TABLES);
		return new JdbcLeaseRepository(this.dataSource, SqlDialect.forName(database.platform()), TABLES,
				Duration.ofSeconds(1));
	}

	/**
	 * The query the troubleshooting page gives operators (docs/how-to/who-leads.sql)
	 * reads a lease as the repository does: alive until its holder's session ends, not
	 * until the lease row's own expiry, which the heartbeat no longer moves.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theTroubleshootingQueryReadsALeaseThroughItsHoldersSession(TestDatabase database) throws IOException {
		JdbcLeaseRepository repository = repository(database);
		assertThat(repository.heartbeat("a", "a-1", Duration.ofSeconds(30), -1)).isEqualTo(Candidacy.CREATED);
		assertThat(repository.create("e", "a", Duration.ofMillis(1))).isTrue();
		assertThat(repository.create("lock:job", "b", Duration.ofSeconds(30))).isTrue();
		String query = Files.readString(Path.of("..", "docs", "how-to", "who-leads.sql"))
			.replace("leader_election_lease", TABLES.leaseTable());
		List<Map<String, Object>> rows = new JdbcTemplate(this.dataSource).queryForList(query);
		LeaseState lease = repository.find("e").orElseThrow();
		assertThat(rows).singleElement().satisfies((row) -> {
			assertThat(row.get(key(row, "election_name"))).isEqualTo("e");
			assertThat(row.get(key(row, "leader_id"))).isEqualTo("a");
			assertThat(((Number) row.get(key(row, "term"))).longValue()).isEqualTo(lease.term());
			assertThat(((Number) row.get(key(row, "leads_until"))).longValue())
				.isEqualTo(lease.expiresAt().toEpochMilli())
				.isGreaterThan(lease.databaseTime().toEpochMilli() + 10_000);
		});
	}

	/** A column of a row as the database names it (H2 upper-cases unquoted names). */
	private static String key(Map<String, Object> row, String column) {
		return row.keySet().stream().filter(column::equalsIgnoreCase).findFirst().orElseThrow();
	}

	/**
	 * What an application's thread calls (an operator's endpoint,
	 * {@code Election.leaderInfo} or {@code forceLeader} from a {@code @Transactional}
	 * method) gives its connection back to the election's pool after each statement, not
	 * when the caller's transaction ends: a few long transactions would otherwise hold
	 * the small pool the heartbeat renews through (I8).
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void callsInsideTheCallersTransactionGiveTheirConnectionBackAtOnce(TestDatabase database) {
		repository(database).create("e", "a", Duration.ofSeconds(30));
		try (HikariDataSource electionPool = database.dataSource(database.url(), 2)) {
			JdbcLeaseRepository repository = new JdbcLeaseRepository(electionPool,
					SqlDialect.forName(database.platform()), TABLES, Duration.ofSeconds(1));
			TransactionTemplate caller = new TransactionTemplate(new JdbcTransactionManager(this.dataSource));
			caller.executeWithoutResult((status) -> {
				assertThat(repository.find("e")).isPresent();
				assertThat(electionPool.getHikariPoolMXBean().getActiveConnections()).as("after find").isZero();
				repository.liveCandidates("e", Duration.ofSeconds(30));
				assertThat(electionPool.getHikariPoolMXBean().getActiveConnections()).as("after liveCandidates")
					.isZero();
				assertThat(repository.requestHandover("e", "b")).isTrue();
				assertThat(electionPool.getHikariPoolMXBean().getActiveConnections()).as("after requestHandover")
					.isZero();
				assertThat(repository.requestReelection("e")).isTrue();
				assertThat(electionPool.getHikariPoolMXBean().getActiveConnections()).as("after requestReelection")
					.isZero();
			});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void tablesOfAnEarlierSnapshotGetTheSessionColumnsAtTheNextCreate(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("ALTER TABLE " + TABLES.leaseTable() + " DROP COLUMN leader_instance");
		if (!database.platform().equals("mysql")) {
			jdbc.execute("DROP INDEX " + TABLES.deltaIndex());
		}
		jdbc.execute("ALTER TABLE " + TABLES.leaseTable() + " DROP COLUMN changed_at");
		assertThat(indexes(TABLES.leaseTable())).doesNotContain(TABLES.deltaIndex().toLowerCase(Locale.ROOT));
		for (String column : List.of("version", "expires_at", "takeovers")) {
			jdbc.execute("ALTER TABLE " + TABLES.nodesTable() + " DROP COLUMN " + column);
		}

		LeaseSchema.create(this.dataSource, SqlDialect.forName(database.platform()), TABLES);
		LeaseSchema.create(this.dataSource, SqlDialect.forName(database.platform()), TABLES);

		assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		assertThat(repository.create("e", "a", MOMENT)).isTrue();
		LeaseState lease = repository.find("e").orElseThrow();
		assertThat(lease.holderVersion()).isOne();
		assertThat(lease.expired()).isFalse();
		assertThat(indexes(TABLES.leaseTable())).contains(TABLES.deltaIndex().toLowerCase(Locale.ROOT));
	}

	/** The names of a table's indexes, in lower case. */
	private List<String> indexes(String table) {
		return new JdbcTemplate(this.dataSource).execute((ConnectionCallback<List<String>>) (connection) -> {
			List<String> names = new ArrayList<>();
			for (String name : List.of(table, table.toUpperCase(Locale.ROOT))) {
				try (ResultSet rs = connection.getMetaData()
					.getIndexInfo(connection.getCatalog(), connection.getSchema(), name, false, false)) {
					while (rs.next()) {
						String index = rs.getString("INDEX_NAME");
						if (index != null) {
							names.add(index.toLowerCase(Locale.ROOT));
						}
					}
				}
			}
			return names;
		});
	}

	/**
	 * A node joins and checks in as a whole.
	 * @param repository the repository
	 * @param nodeId the node
	 * @param elections the elections it joins
	 */
	private static void joinAs(JdbcLeaseRepository repository, String nodeId, String... elections) {
		assertThat(repository.heartbeat(nodeId, nodeId + "-1", LEASE, -1)).isIn(Candidacy.HELD, Candidacy.CREATED);
		repository.join(nodeId, nodeId + "-1", List.of(elections));
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theAnswersToChangesOfHolderNameTheServerThatAnsweredAsTheReadsDo(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isIn(Candidacy.HELD, Candidacy.CREATED);
		repository.join("a", "a-1", List.of("e"));
		List<LeaseState> created = repository.createAll("a", List.of("e"), LEASE);
		String read = repository.readAll("a", "a-1").lease("e").server();
		// A change decided on one server's read and applied on another's is not believed:
		// the node compares the two.
		assertThat(read).isNotBlank();
		assertThat(created).singleElement().satisfies((lease) -> assertThat(lease.server()).isEqualTo(read));
		assertThat(repository.find("e")).hasValueSatisfying((lease) -> assertThat(lease.server()).isEqualTo(read));
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void joiningTenThousandElectionsTakesAFewStatements(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		List<String> elections = IntStream.range(0, 10_000).mapToObj((i) -> "e" + i).toList();
		joinAs(repository, "a", elections.toArray(String[]::new));
		assertThat(new JdbcTemplate(this.dataSource)
			.queryForObject("SELECT COUNT(*) FROM " + TABLES.candidateTable() + " WHERE node_id = 'a'", Integer.class))
			.isEqualTo(10_000);
	}

	/**
	 * What the purge deletes from the tables with a crashed node and a lease nobody runs
	 * any more: every candidates row of the node, and the lease's fence row with it.
	 * {@code LeaseRepositoryContract} checks what the repository answers after it.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void purgeDeletesTheCandidatesRowsOfACrashedNodeAndTheFenceRowOfALeaseNobodyRuns(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Duration maxAge = Duration.ofMillis(300);
		// "crashed" joined "orphan" and "shared" and stopped sending heartbeats; "live"
		// goes on.
		joinAs(repository, "crashed", "orphan", "shared");
		assertThat(repository.create("orphan", "crashed", Duration.ofMillis(1))).isTrue();
		assertThat(repository.create("shared", "crashed", Duration.ofMillis(1))).isTrue();
		joinAs(repository, "live", "shared");
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			repository.heartbeat("live", "live-1", LEASE, -1);
			repository.purge(maxAge);
			return repository.find("orphan").isEmpty();
		});
		assertThat(new JdbcTemplate(this.dataSource).queryForList("SELECT node_id FROM " + TABLES.candidateTable(),
				String.class))
			.containsExactly("live");
		assertThat(fenceRows()).containsExactly("shared");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void purgeLooksThroughTheLeasesASliceAtATimeAndGoesRound(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		// 2,500 leases that a node runs, and one nobody runs any more, last in key order.
		// Set up as the heartbeat creates leases, a batch at a time, with room for a busy
		// database: a single insert of all 2,500 once ran past the 1 s timeout on
		// PostgreSQL in CI.
		JdbcLeaseRepository setUp = new JdbcLeaseRepository(this.dataSource, SqlDialect.forName(database.platform()),
				TABLES, Duration.ofSeconds(10));
		List<String> elections = IntStream.range(0, 2_500).mapToObj((i) -> String.format("e%04d", i)).toList();
		joinAs(setUp, "a", elections.toArray(String[]::new));
		for (int from = 0; from < elections.size(); from += ElectionService.HOLDER_CHANGES_PER_BATCH) {
			List<String> batch = elections.subList(from,
					Math.min(elections.size(), from + ElectionService.HOLDER_CHANGES_PER_BATCH));
			assertThat(setUp.createAll("a", batch, Duration.ofMillis(1))).hasSize(batch.size());
		}
		assertThat(repository.create("z-unused", "a", Duration.ofMillis(1))).isTrue();
		new JdbcTemplate(this.dataSource)
			.update("UPDATE " + TABLES.leaseTable() + " SET expires_at = expires_at - 3600000");
		Duration maxAge = Duration.ofMinutes(1);

		repository.purge(maxAge);
		repository.purge(maxAge);
		assertThat(repository.find("z-unused")).as("after two slices of 1,000").isPresent();
		repository.purge(maxAge);
		assertThat(repository.find("z-unused")).as("after the third, to the end").isEmpty();
		// Round again: one created and left unused at the start of the keys is found next
		// time.
		assertThat(repository.create("a-unused", "a", Duration.ofMillis(1))).isTrue();
		new JdbcTemplate(this.dataSource).update("UPDATE " + TABLES.leaseTable()
				+ " SET expires_at = expires_at - 3600000 WHERE election_name = 'a-unused'");
		repository.purge(maxAge);
		assertThat(repository.find("a-unused")).isEmpty();
		assertThat(repository.find("e2499")).as("a lease a node runs stays").isPresent();
	}

	private List<String> fenceRows() {
		return new JdbcTemplate(this.dataSource)
			.queryForList("SELECT election_name FROM " + TABLES.fenceTable() + " ORDER BY election_name", String.class);
	}

	/**
	 * The fence row is copied from the lease row: inserted where it is missing, updated
	 * where an earlier holder left it. With {@code VALUES(col)} in its
	 * {@code ON DUPLICATE KEY UPDATE} the statement raised warning 1287 (deprecated) on
	 * MySQL 8.0.20 and later; the one MySQL-protocol statement must run without a warning
	 * on MySQL and MariaDB alike.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void fenceRowIsWrittenFromTheLeaseRowWithoutWarnings(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		assertThat(repository.create("e", "a", LEASE)).isTrue();
		long term = repository.find("e").orElseThrow().term();
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		String writeFence = repository.dialect().writeFence(TABLES.fenceTable(), TABLES.leaseTable());
		String changeHolder = "UPDATE " + TABLES.leaseTable()
				+ " SET leader_id = ?, term = ? WHERE election_name = 'e'";
		String readFence = "SELECT leader_id, term FROM " + TABLES.fenceTable() + " WHERE election_name = 'e'";
		RowMapper<String> holderAndTerm = (rs, row) -> rs.getString(1) + ":" + rs.getLong(2);

		jdbc.update(changeHolder, "b", term + 1);
		assertThat(writeWithWarnings(jdbc, writeFence)).as("update").isEmpty();
		assertThat(jdbc.query(readFence, holderAndTerm)).containsExactly("b:" + (term + 1));

		jdbc.update("DELETE FROM " + TABLES.fenceTable());
		jdbc.update(changeHolder, "c", term + 2);
		assertThat(writeWithWarnings(jdbc, writeFence)).as("insert").isEmpty();
		assertThat(jdbc.query(readFence, holderAndTerm)).containsExactly("c:" + (term + 2));
	}

	/** Write election e's fence row and return the warnings the server raised for it. */
	private static List<String> writeWithWarnings(JdbcTemplate jdbc, String writeFence) {
		return jdbc.execute((ConnectionCallback<List<String>>) (connection) -> {
			List<String> warnings = new ArrayList<>();
			try (PreparedStatement statement = connection.prepareStatement(writeFence)) {
				statement.setString(1, "e");
				statement.executeUpdate();
				for (SQLWarning warning = statement.getWarnings(); warning != null; warning = warning
					.getNextWarning()) {
					warnings.add(warning.getErrorCode() + " " + warning.getMessage());
				}
			}
			if (connection.getMetaData().getDatabaseProductName().matches("(?i)mysql|mariadb")) {
				// Not every driver fetches the server's warnings of a statement.
				try (Statement show = connection.createStatement(); ResultSet rs = show.executeQuery("SHOW WARNINGS")) {
					while (rs.next()) {
						warnings.add(rs.getInt("Code") + " " + rs.getString("Message"));
					}
				}
			}
			return warnings;
		});
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void fencedWorkCommitsOnlyForTheHolderOfTheTerm(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("DROP TABLE IF EXISTS fenced_work");
		jdbc.execute("CREATE TABLE fenced_work (id INT PRIMARY KEY)");
		repository.create("e", "a", LEASE);
		long term = repository.find("e").orElseThrow().term();
		Long fencedTerm = repository.runFenced("e", "a", term, LEASE, (t) -> {
			jdbc.update("INSERT INTO fenced_work (id) VALUES (1)");
			return t;
		});
		assertThat(fencedTerm).isEqualTo(term);
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> repository.runFenced("e", "a", term - 1,
				LEASE, (t) -> jdbc.update("INSERT INTO fenced_work (id) VALUES (2)")));
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> repository.runFenced("e", "b", term, LEASE,
				(t) -> jdbc.update("INSERT INTO fenced_work (id) VALUES (3)")));
		assertThat(jdbc.queryForList("SELECT id FROM fenced_work", Integer.class)).containsExactly(1);
	}

	/**
	 * What a fenced run costs, counted by the server (MySQL's and MariaDB's
	 * {@code Questions}: every statement a client sent) on one connection. In autocommit
	 * mode (a pool's default): the begin that also sets the session limit, the fence (one
	 * statement that locks and checks), and the commit that also restores
	 * {@code wait_timeout}. Not in autocommit mode: the limit, the fence, the commit and
	 * the restore.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB" })
	void fencedRunSendsThreeStatementsOnMySqlInAutocommitMode(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		repository.create("e", "a", LEASE);
		long term = repository.find("e").orElseThrow().term();
		inEachAutocommitMode(database, (fenced, jdbc, autoCommit) -> {
			fenced.runFenced("e", "a", term, LEASE, (t) -> t);
			long before = questions(jdbc);
			assertThat(fenced.<Long>runFenced("e", "a", term, LEASE, (t) -> t)).isEqualTo(term);
			// Less the SHOW that reads the count.
			long sent = questions(jdbc) - before - 1;
			assertThat(sent).as("statements of a fenced run, autocommit %s", autoCommit).isEqualTo(autoCommit ? 3 : 4);
			assertSessionAsItWas(jdbc, autoCommit);
		});
	}

	/**
	 * A fenced run whose work fails leaves nothing committed, and the session as it was:
	 * its own {@code wait_timeout}, its autocommit mode, no transaction open.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB" })
	void failedFencedRunRollsBackAndRestoresTheSessionOnMySql(TestDatabase database) {
		long term = leaseWithFencedWorkTable(database);
		JdbcTemplate setup = new JdbcTemplate(this.dataSource);
		inEachAutocommitMode(database, (fenced, jdbc, autoCommit) -> {
			assertThatIllegalStateException().isThrownBy(() -> fenced.runFenced("e", "a", term, LEASE, (t) -> {
				jdbc.update("INSERT INTO fenced_work (id) VALUES (1)");
				throw new IllegalStateException("the work failed");
			}));
			assertThat(setup.queryForList("SELECT id FROM fenced_work", Integer.class)).isEmpty();
			assertSessionAsItWas(jdbc, autoCommit);
		});
	}

	/**
	 * The commit of a fenced transaction that began with the session limit checks that it
	 * runs on the session that began it: after a driver reconnected (simulated here by
	 * the loss of the session's token), it commits nothing and fails.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB" })
	void fencedCommitOnAnotherSessionFailsOnMySql(TestDatabase database) {
		long term = leaseWithFencedWorkTable(database);
		JdbcTemplate setup = new JdbcTemplate(this.dataSource);
		onOneConnection(database, true, (fenced, jdbc, autoCommit) -> {
			assertThatException().isThrownBy(() -> fenced.runFenced("e", "a", term, LEASE, (t) -> {
				jdbc.update("INSERT INTO fenced_work (id) VALUES (1)");
				jdbc.execute("SET @leader_election_fenced_session = NULL");
				return t;
			})).havingRootCause().withMessageContaining("not the session of this fenced transaction");
			assertThat(setup.queryForList("SELECT id FROM fenced_work", Integer.class)).isEmpty();
			assertSessionAsItWas(jdbc, true);
		});
	}

	/**
	 * A fenced transaction whose session the server drops between the work and the commit
	 * (a network cut, or the server's own limit): the caller learns that the commit
	 * failed, not that a rollback failed on the broken connection, and nothing commits.
	 * Spring Boot's transaction manager, {@link JdbcTransactionManager}, rolls back after
	 * a commit exception; had that rollback failed it would log an error and throw its
	 * own exception. On MySQL in both autocommit modes of the pool: with and without the
	 * session-limited transaction.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB", "POSTGRESQL" })
	void fencedCommitOnADroppedSessionFailsAsACommit(TestDatabase database) {
		long term = leaseWithFencedWorkTable(database);
		JdbcTemplate setup = new JdbcTemplate(this.dataSource);
		boolean postgresql = database == TestDatabase.POSTGRESQL;
		for (boolean autoCommit : postgresql ? List.of(true) : List.of(false, true)) {
			SingleConnectionDataSource connection = new SingleConnectionDataSource(database.url(), database.username(),
					database.password(), true);
			connection.setAutoCommit(autoCommit);
			try {
				JdbcLeaseRepository fenced = new JdbcLeaseRepository(connection, new JdbcTransactionManager(connection),
						connection, SqlDialect.forName(database.platform()), TABLES, Duration.ofSeconds(1));
				JdbcTemplate jdbc = new JdbcTemplate(connection);
				assertThatExceptionOfType(DataAccessException.class).as("autocommit %s", autoCommit)
					.isThrownBy(() -> fenced.runFenced("e", "a", term, LEASE, (t) -> {
						jdbc.update("INSERT INTO fenced_work (id) VALUES (1)");
						dropSession(setup, jdbc, postgresql);
						return t;
					}))
					.withMessageContaining("JDBC commit");
			}
			finally {
				connection.destroy();
			}
			assertThat(setup.queryForList("SELECT id FROM fenced_work", Integer.class)).isEmpty();
		}
	}

	/**
	 * Make the server end the session of {@code jdbc}, from another session, and wait
	 * until it is gone.
	 */
	private static void dropSession(JdbcTemplate setup, JdbcTemplate jdbc, boolean postgresql) {
		String sessions = postgresql ? "pg_stat_activity WHERE pid = ?" : "information_schema.PROCESSLIST WHERE ID = ?";
		long session = jdbc.queryForObject(postgresql ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()",
				Long.class);
		if (postgresql) {
			setup.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, (int) session);
		}
		else {
			setup.execute("KILL " + session);
		}
		await("the end of session " + session).atMost(Duration.ofSeconds(5))
			.until(() -> setup.queryForObject("SELECT COUNT(*) FROM " + sessions, Long.class,
					postgresql ? (Object) (int) session : (Object) session) == 0);
	}

	/**
	 * Create the lease of election {@code e}, held by {@code a}, and an empty table
	 * {@code fenced_work}.
	 * @return the lease's term
	 */
	private long leaseWithFencedWorkTable(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("DROP TABLE IF EXISTS fenced_work");
		jdbc.execute("CREATE TABLE fenced_work (id INT PRIMARY KEY)");
		repository.create("e", "a", LEASE);
		return repository.find("e").orElseThrow().term();
	}

	/**
	 * Run a test on one connection in each autocommit mode, not in autocommit mode first.
	 */
	private void inEachAutocommitMode(TestDatabase database, OneConnectionTest test) {
		onOneConnection(database, false, test);
		onOneConnection(database, true, test);
	}

	/**
	 * Run a test on a repository whose election statements and fenced work share one
	 * connection, in the given autocommit mode.
	 */
	private void onOneConnection(TestDatabase database, boolean autoCommit, OneConnectionTest test) {
		SingleConnectionDataSource connection = new SingleConnectionDataSource(database.url(), database.username(),
				database.password(), true);
		connection.setAutoCommit(autoCommit);
		try {
			test.run(new JdbcLeaseRepository(connection, SqlDialect.MYSQL, TABLES, Duration.ofSeconds(1)),
					new JdbcTemplate(connection), autoCommit);
		}
		finally {
			connection.destroy();
		}
	}

	@FunctionalInterface
	private interface OneConnectionTest {

		void run(JdbcLeaseRepository fenced, JdbcTemplate jdbc, boolean autoCommit);

	}

	private void assertSessionAsItWas(JdbcTemplate jdbc, boolean autoCommit) {
		assertThat(jdbc.queryForObject("SELECT @@SESSION.wait_timeout = @@GLOBAL.wait_timeout"
				+ " AND @@SESSION.net_write_timeout = @@GLOBAL.net_write_timeout", Boolean.class))
			.as("wait_timeout and net_write_timeout restored")
			.isTrue();
		assertThat(jdbc.queryForObject("SELECT @@SESSION.autocommit", Integer.class)).as("autocommit mode")
			.isEqualTo(autoCommit ? 1 : 0);
		// No transaction left open: another session can lock the fence row at once (no
		// privilege needed, unlike information_schema.innodb_trx).
		assertThat(new JdbcTemplate(this.dataSource).queryForList(
				"SELECT election_name FROM " + TABLES.fenceTable() + " WHERE election_name = 'e' FOR UPDATE NOWAIT",
				String.class))
			.as("the fence row, locked by another session")
			.containsExactly("e");
	}

	private static long questions(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SHOW SESSION STATUS LIKE 'Questions'", (rs, row) -> rs.getLong(2));
	}

	/**
	 * A name that the tables cannot hold (a schema of one's own with shorter names) fails
	 * its own rows only: the other elections of the same statements join and are created,
	 * and the refusal is reported once per table, not at every round.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aNameTheTablesCannotHoldHoldsUpNoOtherElectionAndIsReportedOnce(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		String narrow = LeaseSchema.script(SqlDialect.forName(database.platform()), TABLES)
			.replace("VARCHAR(128)", "VARCHAR(24)");
		new ResourceDatabasePopulator(new ByteArrayResource(narrow.getBytes(StandardCharsets.UTF_8)))
			.execute(this.dataSource);
		String tooLong = "e-" + "x".repeat(30);
		List<String> elections = new ArrayList<>(IntStream.range(0, 40).mapToObj((i) -> "e" + i).toList());
		elections.add(17, tooLong);
		List<String> others = elections.stream().filter((election) -> !election.equals(tooLong)).toList();
		List<ILoggingEvent> warnings = warningsDuring(() -> {
			joinAs(repository, "a", elections.toArray(String[]::new));
			assertThat(repository.createAll("a", elections, LEASE)).extracting(LeaseState::election)
				.containsExactlyInAnyOrderElementsOf(others);
			assertThat(repository.findAll("a", "a-1")).extracting(LeaseState::election)
				.containsExactlyInAnyOrderElementsOf(others);
			// Later rounds try it again and say nothing more.
			repository.join("a", "a-1", List.of(tooLong, "e-late"));
			assertThat(repository.createAll("a", List.of("e-late", tooLong), LEASE)).extracting(LeaseState::election)
				.containsExactly("e-late");
		});
		assertThat(repository.liveCandidates("e-late", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
		assertThat(warnings).extracting(ILoggingEvent::getFormattedMessage)
			.satisfiesExactlyInAnyOrder(
					(message) -> assertThat(message)
						.startsWith("Election '" + tooLong + "': the database refuses its row in "
								+ TABLES.candidateTable() + ", and the election gets no leader until it accepts it"),
					(message) -> assertThat(message)
						.startsWith("Election '" + tooLong + "': the database refuses its row in " + TABLES.leaseTable()
								+ ", and the election gets no leader until it accepts it"));
		assertThat(warnings)
			.allSatisfy((warning) -> assertThat(warning.getFormattedMessage()).containsIgnoringCase("long"));
	}

	/**
	 * Tables created before the script made names compare exactly take names that differ
	 * only in case or accents for one, as the server's default collation does: the first
	 * statement reports them with the statements that fix them, and a node that runs two
	 * such elections leads all the others of the same batches, and reports the one it
	 * cannot create once, naming the other; once the statements ran, it leads that one
	 * too.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB" })
	void tablesThatTakeNamesDifferingInCaseForOneAreReportedWithTheirFixAndHoldUpNoOtherElection(
			TestDatabase database) {
		repository(database);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		for (String table : TABLES.allTables()) {
			jdbc.execute("ALTER TABLE " + table + " CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
		}
		ElectionSettings settings = new ElectionSettings(Duration.ofSeconds(2), Duration.ofMillis(400),
				Duration.ofMillis(400), Duration.ofMillis(300));
		JdbcLeaseRepository repository = new JdbcLeaseRepository(this.dataSource, SqlDialect.MYSQL, TABLES,
				settings.statementTimeout());
		ElectionService service = new ElectionService(repository, settings, "a", LeadershipListener.NONE);
		List<String> leading = List.of("t-A", "t-b", "default");
		String fix = TABLES.allTables()
			.stream()
			.map((table) -> "ALTER TABLE " + table + " CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
			.collect(Collectors.joining("; "));
		try {
			List<ILoggingEvent> warnings = warningsDuring(() -> {
				List.of("t-A", "t-a", "t-b", "default").forEach(service::election);
				service.start();
				await("a leads " + leading).atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> leading.stream().allMatch((name) -> service.election(name).isLeader()));
				// Rounds go on, creating t-a again and again: reported once.
				await("a few more rounds").during(Duration.ofMillis(1200))
					.atMost(Duration.ofSeconds(5))
					.until(() -> leading.stream().allMatch((name) -> service.election(name).isLeader())
							&& !service.election("t-a").isLeader());
			});
			assertThat(warnings).extracting(ILoggingEvent::getFormattedMessage)
				.satisfiesExactly(
						(message) -> assertThat(message)
							.contains(TABLES.leaseTable() + ".election_name (utf8mb4_general_ci)",
									TABLES.candidateTable() + ".node_id (utf8mb4_general_ci)",
									TABLES.pinsTable() + ".group_name (utf8mb4_general_ci)")
							.endsWith(fix),
						(message) -> assertThat(message).startsWith("Election 't-a': the database refuses its row in "
								+ TABLES.leaseTable()
								+ ", and the election gets no leader until it accepts it; the other elections go on:"
								+ " the table takes it for ['t-A'], which differs only in case or accents")
							.endsWith(fix + ")"));

			// The statements given make them compare exactly: t-a gets its leader, with
			// no restart.
			for (String statement : fix.split("; ")) {
				jdbc.execute(statement);
			}
			await("a leads t-a too").atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> service.election("t-a").isLeader());
		}
		finally {
			service.stop();
		}
		assertThat(repository.find("t-a").orElseThrow().election()).isEqualTo("t-a");
		assertThat(repository.find("t-A").orElseThrow().election()).isEqualTo("t-A");
		JdbcLeaseRepository fixed = new JdbcLeaseRepository(this.dataSource, SqlDialect.MYSQL, TABLES,
				settings.statementTimeout());
		assertThat(warningsDuring(() -> assertThat(fixed.find("t-a")).isPresent())).isEmpty();
		// Trailing spaces still compare as none (PAD SPACE): why names must not end with
		// one.
		assertThat(fixed.create("t-b ", "a", LEASE)).isFalse();
	}

	/** The warnings of the library while something runs. */
	private static List<ILoggingEvent> warningsDuring(Runnable action) {
		ListAppender<ILoggingEvent> logged = new ListAppender<>();
		Logger library = (Logger) LoggerFactory.getLogger("io.github.dbleader");
		logged.start();
		library.addAppender(logged);
		try {
			action.run();
		}
		finally {
			library.detachAppender(logged);
		}
		return logged.list.stream().filter((event) -> event.getLevel().isGreaterOrEqual(Level.WARN)).toList();
	}

	/**
	 * MariaDB Connector/J, like MySQL Connector/J, counts the rows an UPDATE matched, but
	 * applications may set {@code useAffectedRows=true}, which counts only rows whose
	 * values changed. Every election UPDATE increments the version, so it still counts
	 * the row it matched, even when it changes nothing else.
	 */
	@Test
	void updatesCountTheirRowWhenTheMariaDbDriverCountsAffectedRows() {
		TestDatabase database = TestDatabase.MARIADB;
		String url = database.url();
		JdbcLeaseRepository repository = repository(database,
				url + (url.contains("?") ? "&" : "?") + "useAffectedRows=true");
		assertThat(repository.create("e", "a", LEASE)).isTrue();
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		assertThat(jdbc.update("UPDATE " + TABLES.leaseTable() + " SET leader_id = leader_id")).as("affected rows")
			.isZero();
		long term = repository.find("e").orElseThrow().term();
		assertThat(repository.requestHandover("e", "b")).isTrue();
		assertThat(repository.requestHandover("e", "b")).isTrue();
		assertThat(repository.requestReelection("e")).isTrue();
		assertThat(repository.requestReelection("e")).isTrue();
		assertThat(repository.reacquire("e", "a", term, LEASE)).isTrue();
		joinAs(repository, "a", "e");
		assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
	}

}
