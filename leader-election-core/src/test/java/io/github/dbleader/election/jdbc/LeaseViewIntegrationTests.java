package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseReads;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.jdbc.HeartbeatStatementsIntegrationTests.PlanCheck;
import io.github.dbleader.election.jdbc.HeartbeatStatementsIntegrationTests.SentStatement;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The heartbeat's read of what changed ({@link LeaseView}) on each real database: a
 * node's view read partly answers what a whole read does, through every kind of change
 * another node makes; a change the read of changes missed (one that committed long after
 * the time it was marked with) is read within one pass of the slices read by key; and the
 * reads that a node must not miss (a take-over of its own lease, an election it joins)
 * come at once.
 */
class LeaseViewIntegrationTests {

	private static final LeaseTables TABLES = new LeaseTables("view_test_lease", "view_test_candidate");

	/**
	 * Long enough that no lease or session runs out while a test runs, unless it says so.
	 */
	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final List<String> NODES = List.of("a", "b", "c");

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	@AfterEach
	void close() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	private JdbcLeaseRepository repository(TestDatabase database) {
		if (this.dataSource == null) {
			this.dataSource = database.dataSource(database.url(), 4);
			database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
			LeaseSchema.create(this.dataSource, SqlDialect.forName(database.platform()), TABLES);
			this.jdbc = new JdbcTemplate(this.dataSource);
		}
		// A statement timeout for a busy machine: the set-up writes thousands of rows at
		// once.
		return new JdbcLeaseRepository(this.dataSource, SqlDialect.forName(database.platform()), TABLES,
				Duration.ofSeconds(30));
	}

	/**
	 * A repository whose views read partly from the second read on, a few elections by
	 * key a round, and whole in pages of five elections.
	 */
	private JdbcLeaseRepository partial(TestDatabase database, int rescannedPerRound) {
		JdbcLeaseRepository repository = repository(database);
		repository.viewLimits(0, rescannedPerRound, 5);
		return repository;
	}

	/** Every node checks in and joins every election. */
	private static void joinAll(JdbcLeaseRepository writer, List<String> elections) {
		for (String node : NODES) {
			assertThat(writer.heartbeat(node, node + "-1", LEASE, -1)).isIn(Candidacy.CREATED, Candidacy.HELD);
			writer.join(node, node + "-1", elections);
		}
	}

	private static List<String> elections(int count) {
		return IntStream.range(0, count).mapToObj((i) -> String.format("e%02d", i)).toList();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aPartReadAnswersWhatAWholeReadDoesThroughEveryKindOfChange(TestDatabase database) {
		JdbcLeaseRepository writer = repository(database);
		JdbcLeaseRepository partial = partial(database, 2);
		JdbcLeaseRepository whole = repository(database);
		List<String> elections = new ArrayList<>(elections(12));
		joinAll(writer, elections);
		Random random = new Random(25);
		for (int step = 0; step < 120; step++) {
			String election = elections.get(random.nextInt(elections.size()));
			String node = NODES.get(random.nextInt(NODES.size()));
			String other = NODES.get((NODES.indexOf(node) + 1) % NODES.size());
			LeaseState lease = writer.find(election).orElse(null);
			boolean held = lease != null && !lease.vacant();
			String change = switch (random.nextInt(10)) {
				case 0 -> "create " + writer.create(election, node, LEASE);
				case 1 -> held ? "hand over " + writer.handOver(election, lease.leaderId(), lease.term(), other, LEASE)
						: "nothing";
				case 2 -> held ? "yield " + writer.yield(election, lease.leaderId(), lease.term()) : "nothing";
				case 3 -> (lease != null) ? "take over "
						+ !writer.takeOverAll(node, Map.of(election, LeaseObservation.of(lease)), LEASE).isEmpty()
						: "nothing";
				case 4 -> "request hand-over " + writer.requestHandover(election, other);
				case 5 -> "request re-election " + writer.requestReelection(election);
				case 6 -> held ? "re-acquire " + writer.reacquire(election, lease.leaderId(), lease.term(), LEASE)
						: "nothing";
				case 7 -> "refresh " + writer.heartbeat(node, node + "-1", LEASE, -1);
				case 8 -> {
					// The node itself joins a new election, or leaves one.
					String joined = "j" + step;
					partial.join("a", "a-1", List.of(joined));
					elections.add(joined);
					yield "join " + joined;
				}
				default -> {
					partial.removeCandidate(election, "a", "a-1");
					yield "leave " + election;
				}
			};
			List<LeaseState> read = whole.findAll("a", "a-1");
			// Read as the heartbeat does every other step: each lease composed when asked
			// for.
			List<LeaseState> partRead = (step % 2 == 0) ? partial.findAll("a", "a-1")
					: asked(partial.readAll("a", "a-1"), elections);
			assertThat(comparable(partRead)).as("step %d, %s of %s by %s", step, change, election, node)
				.isEqualTo(comparable(read));
			// The view's states, composed in Java, agree with the read that joins in SQL.
			assertThat(comparable(read.stream().map((seen) -> writer.find(seen.election()).orElseThrow()).toList()))
				.as("step %d, find", step)
				.isEqualTo(comparable(read));
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aChangeTheReadOfChangesMissedIsReadWithinOnePassOfTheSlices(TestDatabase database) {
		JdbcLeaseRepository writer = repository(database);
		JdbcLeaseRepository partial = partial(database, 2);
		List<String> elections = elections(12);
		joinAll(writer, elections);
		assertThat(writer.createAll("b", elections, LEASE)).hasSize(12);
		assertThat(partial.findAll("a", "a-1")).hasSize(12);

		// A hand-over that committed long after the time it was marked with, as a client
		// frozen between its statement and its commit would leave it.
		LeaseState before = writer.find("e07").orElseThrow();
		assertThat(writer.handOver("e07", "b", before.term(), "c", LEASE)).isTrue();
		this.jdbc.update("UPDATE " + TABLES.leaseTable() + " SET changed_at = 0 WHERE election_name = 'e07'");

		// The slices go in name order from the start: e07 comes in the fourth.
		for (int read = 1; read <= 3; read++) {
			assertThat(holder(partial.findAll("a", "a-1"), "e07")).as("read %d", read).isEqualTo("b");
		}
		assertThat(holder(partial.findAll("a", "a-1"), "e07")).isEqualTo("c");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTakeOverOfTheNodesOwnLeaseIsReadAtTheNextRead(TestDatabase database) {
		JdbcLeaseRepository writer = repository(database);
		JdbcLeaseRepository partial = partial(database, 1);
		List<String> elections = elections(12);
		joinAll(writer, elections);
		// Leases that live on a's session alone, which then runs out: a froze.
		assertThat(writer.createAll("a", elections, Duration.ofMillis(1))).hasSize(12);
		assertThat(partial.findAll("a", "a-1")).hasSize(12);
		assertThat(partial.findAll("a", "a-1")).allSatisfy((lease) -> assertThat(lease.leaderId()).isEqualTo("a"));
		this.jdbc.update("UPDATE " + TABLES.nodesTable() + " SET expires_at = 0 WHERE node_id = 'a'");
		LeaseObservation watched = LeaseObservation.of(writer.find("e09").orElseThrow());
		assertThat(writer.takeOverAll("b", Map.of("e09", watched), LEASE)).hasSize(1);
		// Marked long ago, as if its commit had been delayed: only the session's row,
		// which the take-over wrote, tells a that it lost a lease.
		this.jdbc.update("UPDATE " + TABLES.leaseTable() + " SET changed_at = 0 WHERE election_name = 'e09'");
		assertThat(writer.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);

		assertThat(holder(partial.findAll("a", "a-1"), "e09")).isEqualTo("b");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anElectionJoinedIsReadAtTheNextReadAndALeaseCreatedLaterWhenItIs(TestDatabase database) {
		JdbcLeaseRepository writer = repository(database);
		JdbcLeaseRepository partial = partial(database, 1);
		List<String> elections = elections(12);
		writer.heartbeat("b", "b-1", LEASE, -1);
		writer.join("b", "b-1", elections);
		assertThat(writer.createAll("b", elections, LEASE)).hasSize(12);
		this.jdbc.update("UPDATE " + TABLES.leaseTable() + " SET changed_at = 0");
		partial.heartbeat("a", "a-1", LEASE, -1);
		partial.join("a", "a-1", elections.subList(0, 11));
		assertThat(partial.findAll("a", "a-1")).hasSize(11);
		assertThat(partial.findAll("a", "a-1")).hasSize(11);

		partial.join("a", "a-1", List.of("e11", "new"));
		assertThat(holder(partial.findAll("a", "a-1"), "e11")).as("a lease created long ago").isEqualTo("b");
		assertThat(partial.findAll("a", "a-1")).extracting(LeaseState::election).doesNotContain("new");
		assertThat(writer.create("new", "c", LEASE)).isTrue();
		assertThat(holder(partial.findAll("a", "a-1"), "new")).isEqualTo("c");
		partial.removeCandidate("e03", "a", "a-1");
		assertThat(partial.findAll("a", "a-1")).extracting(LeaseState::election).hasSize(12).doesNotContain("e03");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theReadOfChangesReachesTheLeaseRowsByIndex(TestDatabase database) {
		JdbcLeaseRepository writer = repository(database);
		List<String> elections = IntStream.range(0, 2_000).mapToObj((i) -> "e" + i).toList();
		writer.heartbeat("b", "b-1", LEASE, -1);
		writer.join("b", "b-1", elections);
		assertThat(writer.createAll("b", elections, LEASE)).hasSize(2_000);
		SqlDialect dialect = SqlDialect.forName(database.platform());
		// Read from after those rows were written, as a round reads: what changed since.
		long since = this.jdbc.queryForObject("SELECT " + dialect.now() + " + 1", Long.class);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.jdbc.queryForObject("SELECT " + dialect.now(), Long.class) >= since);
		assertThat(writer.create("recent", "b", LEASE)).isTrue();
		String read = LeaseRows.viewSessions(dialect, TABLES.nodesTable(), dialect.serverIdentity())
				+ LeaseRows.viewChanged(TABLES.leaseTable()) + LeaseRows.viewByKey(TABLES.leaseTable()) + "?, ?)";
		if (database == TestDatabase.H2) {
			this.jdbc.execute("ANALYZE");
		}
		List<String> scans = PlanCheck.scans(database, this.jdbc, new SentStatement(read, List.of(since, "e5", "e6")));
		// The node rows are read whole, by design: a handful.
		assertThat(scans)
			.filteredOn((scan) -> !scan.toLowerCase(java.util.Locale.ROOT).contains("nodes") && !scan.startsWith("<")
					&& !scan.startsWith("n:") && !scan.startsWith("d:"))
			.as(read)
			.isEmpty();
		// A page of a whole read: the node's candidacies by their index, their leases by
		// key.
		String page = LeaseRows.viewPage(TABLES.leaseTable(), TABLES.candidateTable());
		assertThat(PlanCheck.scans(database, this.jdbc, new SentStatement(page, List.of("b", "b-1", "e5", 100))))
			.as(page)
			.isEmpty();
	}

	/** The lease of every election that the answer has one of. */
	private static List<LeaseState> asked(LeaseReads leases, List<String> elections) {
		return elections.stream().map(leases::lease).filter(Objects::nonNull).toList();
	}

	private static String holder(List<LeaseState> leases, String election) {
		return leases.stream()
			.filter((lease) -> lease.election().equals(election))
			.findFirst()
			.map(LeaseState::leaderId)
			.orElse("none");
	}

	/** The leases by election, less the time of the read, which two reads never share. */
	private static Map<String, List<Object>> comparable(List<LeaseState> leases) {
		Map<String, List<Object>> byElection = new TreeMap<>();
		for (LeaseState lease : leases) {
			List<Object> values = new ArrayList<>();
			values.add(String.valueOf(lease.leaderId()));
			values.add(lease.term());
			values.add(lease.version());
			values.add(String.valueOf(lease.acquiredAt()));
			values.add(String.valueOf(lease.renewedAt()));
			values.add(lease.expiresAt());
			values.add(String.valueOf(lease.handoverTo()));
			values.add(lease.reelectionRequested());
			values.add(String.valueOf(lease.yieldedBy()));
			values.add(lease.expired());
			values.add(lease.sameServer());
			values.add(lease.holderVersion());
			values.add(lease.sessionEnded());
			byElection.put(lease.election(), values);
		}
		return byElection;
	}

}
