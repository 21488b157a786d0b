package io.github.dbleader.election.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.it.SteppedDatabaseClock;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Every statement of {@link JdbcLeaseRepository} against each real database.
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
		return new JdbcLeaseRepository(this.dataSource, SqlDialect.forName(database.platform()), TABLES, Duration.ofSeconds(1));
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void leasesLiveOnTheSessionOfTheInstanceThatAcquiredThemWhichTheRefreshAloneRenews(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Duration session = Duration.ofMillis(800);
		assertThat(repository.heartbeat("a", "a-1", session)).isEqualTo(Candidacy.CREATED);
		// Their own expiry is over at once: only the session keeps them.
		assertThat(repository.create("e1", "a", MOMENT)).isTrue();
		assertThat(repository.createAll("a", List.of("e2"), MOMENT)).singleElement()
			.satisfies((lease) -> assertThat(lease.expired()).isFalse());
		LeaseState before = repository.find("e1").orElseThrow();
		assertThat(before.expired()).isFalse();
		assertThat(before.holderVersion()).isNotNegative();
		assertThat(before.expiresAt()).isAfter(before.databaseTime());

		for (int refresh = 1; refresh <= 3; refresh++) {
			assertThat(repository.heartbeat("a", "a-1", session)).isEqualTo(Candidacy.HELD);
			LeaseState after = repository.find("e1").orElseThrow();
			assertThat(after.holderVersion()).isEqualTo(before.holderVersion() + refresh);
			assertThat(List.of(after.version(), after.term())).containsExactly(before.version(), before.term());
		}
		// A hand-over leaves the lease without a session until its new holder re-acquires it.
		assertThat(repository.handOver("e2", "a", repository.find("e2").orElseThrow().term(), "b", LEASE)).isTrue();
		assertThat(repository.find("e2").orElseThrow().holderVersion()).isEqualTo(-1);

		await("the session runs out without its refresh").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> repository.find("e1").orElseThrow().expired());
		// Another instance with the node id does not keep the earlier one's leases alive: their
		// session ended at its last version, which a follower's watch goes on with.
		LeaseState lastRefreshed = repository.find("e1").orElseThrow();
		assertThat(repository.heartbeat("a", "a-2", session)).isEqualTo(Candidacy.INHERITED);
		assertThat(repository.heartbeat("a", "a-2", session)).isEqualTo(Candidacy.HELD);
		LeaseState inherited = repository.find("e1").orElseThrow();
		assertThat(inherited.expired()).isTrue();
		assertThat(inherited.sessionEnded()).isTrue();
		assertThat(inherited.holderVersion()).isEqualTo(lastRefreshed.holderVersion());
		assertThat(LeaseObservation.of(inherited).unchangedSince(LeaseObservation.of(lastRefreshed))).isTrue();
	}

	/**
	 * After the database clock stepped back, a refresh keeps the session live for a lease
	 * from the database's time, not from when it was refreshed before the step: it runs out
	 * a lease after its last refresh, and then, not before, another instance may take the
	 * node id over.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void sessionRefreshedAfterTheDatabaseClockSteppedBackRunsOutALeaseAfterTheRefresh(TestDatabase database) {
		repository(database);
		SqlDialect dialect = SqlDialect.forName(database.platform());
		try (SteppedDatabaseClock clock = SteppedDatabaseClock.on(dialect, this.dataSource)) {
			JdbcLeaseRepository repository = new JdbcLeaseRepository(clock.dataSource(this.dataSource), dialect, TABLES,
					Duration.ofSeconds(1));
			Duration session = Duration.ofMillis(800);
			assertThat(repository.heartbeat("a", "a-1", session)).isEqualTo(Candidacy.CREATED);
			clock.step(Duration.ofSeconds(-60));
			assertThat(repository.heartbeat("a", "a-1", session)).isEqualTo(Candidacy.HELD);
			// Acquired after the step, for a moment: only the session keeps the lease.
			assertThat(repository.create("e", "a", MOMENT)).isTrue();
			LeaseState refreshed = repository.find("e").orElseThrow();
			assertThat(refreshed.expired()).isFalse();
			assertThat(refreshed.renewedAt()).as("the session's last refresh").isBeforeOrEqualTo(refreshed.databaseTime());
			assertThat(Duration.between(refreshed.databaseTime(), refreshed.expiresAt())).as("session left")
				.isLessThanOrEqualTo(session);
			assertThat(repository.heartbeat("a", "a-2", session)).as("another instance while the session is live")
				.isEqualTo(Candidacy.IN_USE);
			await("the session runs out").atMost(session.plus(Duration.ofSeconds(2)))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> repository.find("e").orElseThrow().expired());
			assertThat(repository.heartbeat("a", "a-2", session)).isEqualTo(Candidacy.INHERITED);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void leaseWhoseSessionEndedIsTakenOnlyAtTheVersionItEndedAt(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Duration session = Duration.ofMillis(300);
		repository.heartbeat("a", "a-1", session);
		assertThat(repository.create("e", "a", MOMENT)).isTrue();
		LeaseObservation watched = LeaseObservation.of(repository.find("e").orElseThrow());
		await("the node id goes stale").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> repository.heartbeat("a", "a-2", session) == Candidacy.INHERITED);
		LeaseObservation ended = LeaseObservation.of(repository.find("e").orElseThrow());
		assertThat(ended.sessionEnded()).isTrue();
		assertThat(ended.unchangedSince(watched)).isTrue();

		assertThat(repository.takeOver("e", "b", watched, LEASE)).as("as if the session still ran").isFalse();
		assertThat(repository.takeOverAll("b",
				Map.of("e", new LeaseObservation(ended.version(), "a", ended.holderVersion() - 1, true)), LEASE))
			.as("at another version than the one it ended at")
			.isEmpty();
		assertThat(repository.takeOverAll("b", Map.of("e", ended), LEASE)).singleElement()
			.satisfies((taken) -> assertThat(taken.leaderId()).isEqualTo("b"));
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

		assertThat(repository.heartbeat("a", "a-1", LEASE)).isEqualTo(Candidacy.CREATED);
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

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void leaseIsTakenFromItsSessionOnlyOnceTheSessionRanOutAtTheVersionWatched(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Duration session = Duration.ofMillis(500);
		repository.heartbeat("a", "a-1", session);
		assertThat(repository.create("e", "a", MOMENT)).isTrue();
		LeaseObservation watched = LeaseObservation.of(repository.find("e").orElseThrow());
		assertThat(repository.takeOver("e", "b", watched, LEASE)).as("while the session lives").isFalse();
		// The holder refreshes once more, then stops: the follower's watch must start again.
		assertThat(repository.heartbeat("a", "a-1", session)).isEqualTo(Candidacy.HELD);
		await("the session runs out").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> repository.find("e").orElseThrow().expired());
		LeaseObservation now = LeaseObservation.of(repository.find("e").orElseThrow());
		assertThat(now.holderVersion()).isEqualTo(watched.holderVersion() + 1);
		assertThat(repository.takeOver("e", "b", watched, LEASE)).as("at a session version since moved on").isFalse();
		assertThat(repository.takeOverAll("b", Map.of("e", watched), LEASE)).isEmpty();
		assertThat(repository.takeOver("e", "b", new LeaseObservation(now.version(), now.holder(), -1, false), LEASE))
			.as("as if it had no session").isFalse();

		assertThat(repository.takeOverAll("b", Map.of("e", now), LEASE)).singleElement().satisfies((taken) -> {
			assertThat(taken.leaderId()).isEqualTo("b");
			assertThat(taken.version()).isGreaterThan(now.version());
		});
		// The old holder's refresh works again, but the lease is no longer its own.
		assertThat(repository.heartbeat("a", "a-1", session)).isEqualTo(Candidacy.HELD);
		assertThat(repository.find("e").orElseThrow().leaderId()).isEqualTo("b");
	}

	/**
	 * A node joins and checks in as a whole.
	 * @param repository the repository
	 * @param nodeId the node
	 * @param elections the elections it joins
	 */
	private static void joinAs(JdbcLeaseRepository repository, String nodeId, String... elections) {
		assertThat(repository.heartbeat(nodeId, nodeId + "-1", LEASE)).isIn(Candidacy.HELD, Candidacy.CREATED);
		repository.join(nodeId, nodeId + "-1", List.of(elections));
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aNodesElectionsAreJoinedReadAndLeftAtOnce(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		joinAs(repository, "a", "e1", "e2");
		joinAs(repository, "a", "e2", "e3");
		joinAs(repository, "b", "e1");
		assertThat(repository.create("e1", "b", LEASE)).isTrue();
		assertThat(repository.create("e2", "a", LEASE)).isTrue();
		assertThat(repository.create("e9", "a", LEASE)).isTrue();
		// The leases of a's elections that exist; not e9, where a is no candidate.
		assertThat(repository.findAll("a", "a-1")).extracting(LeaseState::election)
			.containsExactlyInAnyOrder("e1", "e2");
		assertThat(repository.findAll("a", "a-1")).filteredOn((state) -> state.election().equals("e1"))
			.singleElement()
			.satisfies((state) -> assertThat(state.leaderId()).isEqualTo("b"));
		assertThat(repository.findAll("a", "another-instance")).isEmpty();
		assertThat(repository.liveCandidates("e1", LEASE)).extracting(Candidate::nodeId).containsExactly("a", "b");
		assertThat(repository.liveCandidates("e3", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
		repository.removeCandidacies("a", "a-1");
		assertThat(repository.findAll("a", "a-1")).isEmpty();
		assertThat(repository.liveCandidates("e1", LEASE)).extracting(Candidate::nodeId).containsExactly("b");
		assertThat(repository.liveCandidates("e3", LEASE)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void joiningTenThousandElectionsTakesAFewStatements(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		List<String> elections = IntStream.range(0, 10_000).mapToObj((i) -> "e" + i).toList();
		joinAs(repository, "a", elections.toArray(String[]::new));
		assertThat(new JdbcTemplate(this.dataSource).queryForObject(
				"SELECT COUNT(*) FROM " + TABLES.candidateTable() + " WHERE node_id = 'a'", Integer.class))
			.isEqualTo(10_000);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void purgeDeletesCrashedNodesAndTheLeasesNobodyRunsAnyMore(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Duration maxAge = Duration.ofMillis(300);
		// "crashed" joined "orphan" and "shared" and stopped sending heartbeats; "live" goes on.
		joinAs(repository, "crashed", "orphan", "shared");
		assertThat(repository.create("orphan", "crashed", Duration.ofMillis(1))).isTrue();
		assertThat(repository.create("shared", "crashed", Duration.ofMillis(1))).isTrue();
		joinAs(repository, "live", "shared");
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			repository.heartbeat("live", "live-1", LEASE);
			repository.purge(maxAge);
			return repository.find("orphan").isEmpty();
		});
		assertThat(repository.liveCandidates("orphan", Duration.ofHours(1))).isEmpty();
		assertThat(repository.liveCandidates("shared", Duration.ofHours(1))).extracting(Candidate::nodeId)
			.containsExactly("live");
		assertThat(new JdbcTemplate(this.dataSource).queryForList("SELECT node_id FROM " + TABLES.candidateTable(),
				String.class)).containsExactly("live");
		// A lease that a live node still runs stays, expired or not.
		assertThat(repository.find("shared")).isPresent();
		assertThat(fenceRows(database)).containsExactly("shared");
		// Created again later, a purged election's term is still greater than any before.
		assertThat(repository.create("orphan", "live", LEASE)).isTrue();
		// The crashed node, back, creates its row again and joins afresh.
		assertThat(repository.heartbeat("crashed", "c-2", LEASE)).isEqualTo(Candidacy.CREATED);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void purgeKeepsALiveNodeWhoseRowLooksStaleByTheDatabaseClock(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		joinAs(repository, "live", "kept");
		assertThat(repository.create("kept", "live", LEASE)).isTrue();
		// A purge age shorter than the time between two refreshes, as after a forward step of
		// the database clock longer than the purge age: every row looks stale.
		Duration maxAge = Duration.ofMillis(1);
		await().pollDelay(Duration.ofMillis(20)).until(() -> true);
		repository.purge(maxAge);
		// The live node refreshes its row between two purges, as it does every renew interval.
		assertThat(repository.heartbeat("live", "live-1", LEASE)).isEqualTo(Candidacy.HELD);
		await().pollDelay(Duration.ofMillis(20)).until(() -> true);
		repository.purge(maxAge);
		assertThat(repository.heartbeat("live", "live-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.liveCandidates("kept", Duration.ofHours(1))).extracting(Candidate::nodeId)
			.containsExactly("live");
		assertThat(repository.find("kept")).hasValueSatisfying((lease) -> assertThat(lease.leaderId()).isEqualTo("live"));
		// A node that stopped refreshing goes at the second purge that finds its row unchanged.
		await().pollDelay(Duration.ofMillis(20)).until(() -> true);
		repository.purge(maxAge);
		assertThat(repository.liveCandidates("kept", Duration.ofHours(1))).hasSize(1);
		repository.purge(maxAge);
		assertThat(repository.liveCandidates("kept", Duration.ofHours(1))).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void purgeLooksThroughTheLeasesASliceAtATimeAndGoesRound(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		// 2,500 leases that a node runs, and one nobody runs any more, last in key order. Set up
		// as the heartbeat creates leases, a batch at a time, with room for a busy database: a
		// single insert of all 2,500 once ran past the 1 s timeout on PostgreSQL in CI.
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
		new JdbcTemplate(this.dataSource).update("UPDATE " + TABLES.leaseTable() + " SET expires_at = expires_at - 3600000");
		Duration maxAge = Duration.ofMinutes(1);

		repository.purge(maxAge);
		repository.purge(maxAge);
		assertThat(repository.find("z-unused")).as("after two slices of 1,000").isPresent();
		repository.purge(maxAge);
		assertThat(repository.find("z-unused")).as("after the third, to the end").isEmpty();
		// Round again: one created and left unused at the start of the keys is found next time.
		assertThat(repository.create("a-unused", "a", Duration.ofMillis(1))).isTrue();
		new JdbcTemplate(this.dataSource)
			.update("UPDATE " + TABLES.leaseTable() + " SET expires_at = expires_at - 3600000 WHERE election_name = 'a-unused'");
		repository.purge(maxAge);
		assertThat(repository.find("a-unused")).isEmpty();
		assertThat(repository.find("e2499")).as("a lease a node runs stays").isPresent();
	}

	private List<String> fenceRows(TestDatabase database) {
		return new JdbcTemplate(this.dataSource)
			.queryForList("SELECT election_name FROM " + TABLES.fenceTable() + " ORDER BY election_name", String.class);
	}

	private static Map<String, LeaseState> leases(JdbcLeaseRepository repository, String... elections) {
		Map<String, LeaseState> leases = new HashMap<>();
		for (String election : elections) {
			leases.put(election, repository.find(election).orElseThrow());
		}
		return leases;
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void createAndRead(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		assertThat(repository.find("e")).isEmpty();
		assertThat(repository.create("e", "a", LEASE)).isTrue();
		assertThat(repository.create("e", "b", LEASE)).isFalse();
		LeaseState state = repository.find("e").orElseThrow();
		assertThat(state.leaderId()).isEqualTo("a");
		assertThat(state.expired()).isFalse();
		assertThat(state.sameServer()).isTrue();
		assertThat(state.expiresAt()).isAfter(state.databaseTime());
		assertThat(Duration.between(state.databaseTime(), state.expiresAt())).isLessThanOrEqualTo(LEASE);
		// Created without a session of its node: the lease lives on its own expiry.
		assertThat(state.holderVersion()).isEqualTo(-1);
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
		String changeHolder = "UPDATE " + TABLES.leaseTable() + " SET leader_id = ?, term = ? WHERE election_name = 'e'";
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
				for (SQLWarning warning = statement.getWarnings(); warning != null; warning = warning.getNextWarning()) {
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
	void takeOverOnlyExpiredObservedVersionWithGreaterTerm(TestDatabase database) throws Exception {
		JdbcLeaseRepository repository = repository(database);
		repository.create("e", "a", Duration.ofSeconds(1));
		LeaseState state = repository.find("e").orElseThrow();
		LeaseObservation observed = LeaseObservation.of(state);
		assertThat(repository.takeOver("e", "b", observed, LEASE)).isFalse();
		await("the lease runs out at the database clock").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> repository.find("e").orElseThrow().expired());
		assertThat(repository.takeOver("e", "b", new LeaseObservation(state.version() - 1, "a", -1, false), LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", LeaseObservation.vacant(), LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", observed, LEASE)).isTrue();
		LeaseState taken = repository.find("e").orElseThrow();
		assertThat(taken.leaderId()).isEqualTo("b");
		assertThat(taken.term()).isGreaterThan(state.term());
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void yieldMakesVacantButKeepsYielderOut(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		repository.create("e", "a", LEASE);
		LeaseState state = repository.find("e").orElseThrow();
		assertThat(repository.yield("e", "b", state.term())).isFalse();
		assertThat(repository.yield("e", "a", state.term())).isTrue();
		LeaseState vacant = repository.find("e").orElseThrow();
		assertThat(vacant.vacant()).isTrue();
		assertThat(vacant.yieldedBy()).isEqualTo("a");
		assertThat(repository.takeOver("e", "a", LeaseObservation.vacant(), LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", LeaseObservation.vacant(), LEASE)).isTrue();
		assertThat(repository.find("e").orElseThrow().term()).isGreaterThan(state.term());
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void handoverAndReelectionRequestsAreRecordedForTheHolderToCarryOut(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		repository.create("e", "a", LEASE);
		long term = repository.find("e").orElseThrow().term();
		assertThat(repository.requestHandover("e", "b")).isTrue();
		assertThat(repository.find("e").orElseThrow().handoverTo()).isEqualTo("b");
		assertThat(repository.handOver("e", "a", term, "b", LEASE)).isTrue();
		LeaseState handed = repository.find("e").orElseThrow();
		assertThat(handed.leaderId()).isEqualTo("b");
		assertThat(handed.handoverTo()).isNull();
		assertThat(handed.term()).isGreaterThan(term);
		assertThat(repository.requestReelection("e")).isTrue();
		assertThat(repository.find("e").orElseThrow().reelectionRequested()).isTrue();
		assertThat(repository.reacquire("e", "b", handed.term(), LEASE)).isTrue();
		LeaseState reacquired = repository.find("e").orElseThrow();
		assertThat(reacquired.term()).isGreaterThan(handed.term());
		// A request recorded after the holder decided to re-acquire stays for it to carry out.
		assertThat(reacquired.reelectionRequested()).isTrue();
		assertThat(repository.requestHandover("e", "a")).isTrue();
		assertThat(repository.reacquireAll("b", Map.of("e", reacquired.term()), LEASE)).singleElement()
			.satisfies((state) -> assertThat(state.handoverTo()).isEqualTo("a"));
		// Asked to lead while leading, the holder takes a new term, which carries the request out.
		assertThat(repository.requestHandover("e", "b")).isTrue();
		long term2 = repository.find("e").orElseThrow().term();
		assertThat(repository.reacquire("e", "b", term2, LEASE)).isTrue();
		assertThat(repository.find("e").orElseThrow().handoverTo()).isNull();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void candidates(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		joinAs(repository, "b", "e");
		joinAs(repository, "a", "e");
		joinAs(repository, "a", "e");
		joinAs(repository, "c", "other");
		List<Candidate> candidates = repository.liveCandidates("e", LEASE);
		assertThat(candidates).extracting(Candidate::nodeId).containsExactly("a", "b");
		assertThat(candidates.get(0).lastSeen()).isAfterOrEqualTo(candidates.get(0).firstSeen());
		repository.removeCandidate("e", "a", "a-1");
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("b");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void instanceLeavesOnlyItsOwnCandidaciesInTheElectionsItDoesNotList(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		repository.heartbeat("a", "first", LEASE);
		repository.join("a", "first", List.of("kept", "left", "also-left"));
		repository.heartbeat("b", "b-1", LEASE);
		repository.join("b", "b-1", List.of("kept", "left"));
		repository.heartbeat("c", "c-1", LEASE);
		repository.join("c", "c-1", List.of("left"));

		repository.leaveOtherElections("a", "first", List.of("kept", "not-joined"));
		repository.leaveOtherElections("b", "another-instance", List.of());

		assertThat(repository.liveCandidates("kept", LEASE)).extracting(Candidate::nodeId).containsExactly("a", "b");
		assertThat(repository.liveCandidates("left", LEASE)).extracting(Candidate::nodeId).containsExactly("b", "c");
		assertThat(repository.liveCandidates("also-left", LEASE)).isEmpty();
		assertThat(repository.liveCandidates("not-joined", LEASE)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void nodeIdOfALiveInstanceIsNotTakenByAnother(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Duration staleAfter = Duration.ofMillis(300);
		assertThat(repository.heartbeat("a", "first", staleAfter)).isEqualTo(Candidacy.CREATED);
		repository.join("a", "first", List.of("e"));
		assertThat(repository.heartbeat("a", "first", staleAfter)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("a", "second", staleAfter)).isEqualTo(Candidacy.IN_USE);
		// The second instance stopping leaves the first one's rows alone.
		repository.removeCandidacies("a", "second");
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
		// Once the first instance's heartbeats have stopped for that long, the second takes the
		// id over, and with it the first one's candidacies.
		Candidacy later = await("the first instance's row goes stale").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> repository.heartbeat("a", "second", staleAfter), (candidacy) -> candidacy != Candidacy.IN_USE);
		assertThat(later).isEqualTo(Candidacy.INHERITED);
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
		assertThat(repository.heartbeat("a", "second", staleAfter)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("a", "first", staleAfter)).isEqualTo(Candidacy.IN_USE);
		repository.removeCandidacies("a", "second");
		assertThat(repository.liveCandidates("e", LEASE)).isEmpty();
		assertThat(repository.heartbeat("a", "first", staleAfter)).isEqualTo(Candidacy.CREATED);
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
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> repository.runFenced("e", "b", term,
				LEASE, (t) -> jdbc.update("INSERT INTO fenced_work (id) VALUES (3)")));
		assertThat(jdbc.queryForList("SELECT id FROM fenced_work", Integer.class)).containsExactly(1);
	}

	/**
	 * What a fenced run costs, counted by the server (MySQL's and MariaDB's
	 * {@code Questions}: every statement a client sent) on one connection. In autocommit
	 * mode (a pool's default): the begin that also sets the session limit, the fence (one
	 * statement that locks and checks), and the commit that also restores
	 * {@code wait_timeout}. Not in autocommit mode: the limit, the fence, the commit and the
	 * restore.
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
			assertThat(sent).as("statements of a fenced run, autocommit %s", autoCommit)
				.isEqualTo(autoCommit ? 3 : 4);
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
	 * runs on the session that began it: after a driver reconnected (simulated here by the
	 * loss of the session's token), it commits nothing and fails.
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
	 * (a network cut, or the server's own limit): the caller learns that the commit failed,
	 * not that a rollback failed on the broken connection, and nothing commits. Spring
	 * Boot's transaction manager, {@link JdbcTransactionManager}, rolls back after a commit
	 * exception; had that rollback failed it would log an error and throw its own exception.
	 * On MySQL in both autocommit modes of the pool: with and without the session-limited
	 * transaction.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "MYSQL", "MARIADB", "POSTGRESQL" })
	void fencedCommitOnADroppedSessionFailsAsACommit(TestDatabase database) {
		long term = leaseWithFencedWorkTable(database);
		JdbcTemplate setup = new JdbcTemplate(this.dataSource);
		boolean postgresql = database == TestDatabase.POSTGRESQL;
		for (boolean autoCommit : postgresql ? List.of(true) : List.of(false, true)) {
			SingleConnectionDataSource connection = new SingleConnectionDataSource(database.url(),
					database.username(), database.password(), true);
			connection.setAutoCommit(autoCommit);
			try {
				JdbcLeaseRepository fenced = new JdbcLeaseRepository(connection,
						new JdbcTransactionManager(connection), connection, SqlDialect.forName(database.platform()),
						TABLES, Duration.ofSeconds(1));
				JdbcTemplate jdbc = new JdbcTemplate(connection);
				assertThatExceptionOfType(DataAccessException.class)
					.as("autocommit %s", autoCommit)
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
	 * Make the server end the session of {@code jdbc}, from another session, and wait until
	 * it is gone.
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
		assertThat(new JdbcTemplate(this.dataSource).queryForList("SELECT election_name FROM "
				+ TABLES.fenceTable() + " WHERE election_name = 'e' FOR UPDATE NOWAIT", String.class))
			.as("the fence row, locked by another session")
			.containsExactly("e");
	}

	private static long questions(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SHOW SESSION STATUS LIKE 'Questions'", (rs, row) -> rs.getLong(2));
	}

	/**
	 * A name that the tables cannot hold (a schema of one's own with shorter names) fails
	 * its own rows only: the other elections of the same statements join and are created, and
	 * the refusal is reported once per table, not at every round.
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
					(message) -> assertThat(message).startsWith("Election '" + tooLong + "': the database refuses its row in "
							+ TABLES.candidateTable() + ", and the election gets no leader until it accepts it"),
					(message) -> assertThat(message).startsWith("Election '" + tooLong + "': the database refuses its row in "
							+ TABLES.leaseTable() + ", and the election gets no leader until it accepts it"));
		assertThat(warnings).allSatisfy((warning) -> assertThat(warning.getFormattedMessage()).containsIgnoringCase("long"));
	}

	/**
	 * Tables created before the script made names compare exactly take names that differ
	 * only in case or accents for one, as the server's default collation does: the first
	 * statement reports them with the statements that fix them, and a node that runs two
	 * such elections leads all the others of the same batches, and reports the one it
	 * cannot create once, naming the other; once the statements ran, it leads that one too.
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
				.satisfiesExactly((message) -> assertThat(message)
					.contains(TABLES.leaseTable() + ".election_name (utf8mb4_general_ci)",
							TABLES.candidateTable() + ".node_id (utf8mb4_general_ci)",
							TABLES.pinsTable() + ".group_name (utf8mb4_general_ci)")
					.endsWith(fix), (message) -> assertThat(message)
						.startsWith("Election 't-a': the database refuses its row in " + TABLES.leaseTable()
								+ ", and the election gets no leader until it accepts it; the other elections go on:"
								+ " the table takes it for ['t-A'], which differs only in case or accents")
						.endsWith(fix + ")"));

			// The statements given make them compare exactly: t-a gets its leader, with no restart.
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
		// Trailing spaces still compare as none (PAD SPACE): why names must not end with one.
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
	 * applications may set {@code useAffectedRows=true}, which counts only rows whose values
	 * changed. Every election UPDATE increments the version, so it still counts the row it
	 * matched, even when it changes nothing else.
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
		assertThat(repository.heartbeat("a", "a-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("a", "a-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
	}

}
