package io.github.dbleader.election;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.election.it.ElectionNode;
import io.github.dbleader.election.it.LeadershipRecorder;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link AbstractElectionIntegrationTests} on a MariaDB Galera cluster, each election
 * node on another cluster node: {@code LEADER_ELECTION_TEST_GALERA_URLS} lists the JDBC
 * URL of each cluster node, comma-separated, {@code LEADER_ELECTION_TEST_GALERA_USERNAME}
 * and {@code _PASSWORD} the user ({@code .ci/galera start} starts such a cluster and
 * prints them). Skipped when the URLs are not set; fails, and does not skip, when a node
 * cannot be reached or is not a synced member of one Galera cluster.
 *
 * <p>
 * Row locks are local to one cluster node, so a take-over through another node does not
 * wait for an open fenced transaction, as it does on one server: certification aborts one
 * of the two instead. The tests of this class drive that race on two cluster nodes, with
 * repositories of their own on tables of their own.
 */
@EnabledIfEnvironmentVariable(named = GaleraElectionIntegrationTests.URLS, matches = ".+",
		disabledReason = "no Galera cluster: set " + GaleraElectionIntegrationTests.URLS + " (see .ci/galera)")
class GaleraElectionIntegrationTests extends AbstractElectionIntegrationTests {

	static final String URLS = "LEADER_ELECTION_TEST_GALERA_URLS";

	private static final AtomicInteger raceCount = new AtomicInteger();

	private static final LeaseTables RACE_TABLES = new LeaseTables("it_galr_lease", "it_galr_cand");

	private static final String RACE_WORK = "it_galr_work";

	/**
	 * A table whose replicated writes a cluster node can be kept from applying, and every
	 * later write with them.
	 */
	private static final String RACE_HOLD_UP = "it_galr_hold_up";

	/**
	 * Statement timeout of the race tests' repositories: half of it for a causal read,
	 * half for its fallback.
	 */
	private static final Duration RACE_STATEMENT_TIMEOUT = Duration.ofSeconds(2);

	private ElectionDatabase cluster;

	/** Election statements and fenced work of node a, on the first cluster node. */
	private HikariDataSource aPool;

	/** Node b's, on the second cluster node. */
	private HikariDataSource bPool;

	private HikariDataSource observerPool;

	/**
	 * Reads that wait until their cluster node applied every earlier commit of the
	 * cluster.
	 */
	private JdbcTemplate check;

	private String election;

	private String username;

	private String password;

	GaleraElectionIntegrationTests() {
		super("gal");
	}

	@Override
	boolean takeOverWaitsForFencedWorkOnAnotherNode() {
		return false;
	}

	@BeforeAll
	void createRaceTables() {
		this.aPool = this.cluster.dataSource("a-race", 2, (config) -> {
		});
		this.bPool = this.cluster.dataSource("b-race", 2, (config) -> {
		});
		assertThat(this.cluster.urlFor("a-race")).isNotEqualTo(this.cluster.urlFor("b-race"));
		this.observerPool = this.cluster.dataSource("race-observer", 1, (config) -> {
		});
		this.check = new JdbcTemplate(this.observerPool);
		this.cluster.recreateTables(this.aPool, RACE_TABLES);
		this.cluster.dropTables(this.aPool, RACE_WORK, RACE_HOLD_UP);
		this.check.execute("CREATE TABLE " + RACE_HOLD_UP + " (election_name VARCHAR(128) NOT NULL PRIMARY KEY)");
		this.check
			.execute("CREATE TABLE " + RACE_WORK + " (election_name VARCHAR(128) NOT NULL, id VARCHAR(64) NOT NULL,"
					+ " term BIGINT NOT NULL, PRIMARY KEY (election_name, id))");
	}

	@BeforeEach
	void nameRace() {
		this.election = "race-" + raceCount.incrementAndGet();
	}

	@AfterAll
	void dropRaceTables() {
		if (this.aPool != null) {
			this.cluster.dropTables(this.aPool, RACE_TABLES.allTables().toArray(String[]::new));
			this.cluster.dropTables(this.aPool, RACE_WORK, RACE_HOLD_UP);
			this.aPool.close();
			this.bPool.close();
			this.observerPool.close();
		}
	}

	@Test
	void changeOfHolderThroughAnotherNodeAbortsAnOpenFencedTransaction() throws Exception {
		JdbcLeaseRepository a = repository(this.aPool);
		JdbcLeaseRepository b = repository(this.bPool);
		long term = leaseHeldByA(a, b);
		CountDownLatch changed = new CountDownLatch(1);
		CompletableFuture<Long> work = openFencedWork(a, term, "open", changed).result();
		// The fence row is locked on the first node only: the change of holder through
		// the second does not wait, and commits.
		assertThat(b.handOver(this.election, "a", term, "b", Duration.ofMinutes(1))).isTrue();
		changed.countDown();
		assertThatThrownBy(() -> work.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(FenceNotConfirmedException.class)
			.hasMessageContaining("could not confirm its fence of term " + term);
		assertThat(committedWork()).isEmpty();
		assertThat(holder()).isEqualTo("b");
	}

	@Test
	void fencedTransactionCommittingWhileAChangeOfHolderIsOpenOnAnotherNodeAbortsOneOfThem() throws Exception {
		JdbcLeaseRepository a = repository(this.aPool);
		CountDownLatch committing = new CountDownLatch(1);
		CountDownLatch commit = new CountDownLatch(1);
		JdbcLeaseRepository b = repository(commitWaits(this.bPool, committing, commit));
		long term = leaseHeldByA(a, b);
		// b's change of holder has written both rows on the second node and waits to
		// commit.
		CompletableFuture<Boolean> change = CompletableFuture
			.supplyAsync(() -> b.handOver(this.election, "a", term, "b", Duration.ofMinutes(1)));
		assertThat(committing.await(10, TimeUnit.SECONDS)).as("the change of holder is about to commit").isTrue();
		// Meanwhile, on the first node, nothing is locked and a's fence holds: its work
		// commits.
		Throwable fenced = null;
		try {
			a.runFenced(this.election, "a", term, Duration.ofSeconds(10),
					(fencedTerm) -> insertWork("racing", fencedTerm));
		}
		catch (NotLeaderException | DataAccessException ex) {
			fenced = ex;
		}
		commit.countDown();
		Throwable changing = null;
		try {
			assertThat(change.get(10, TimeUnit.SECONDS)).isTrue();
		}
		catch (ExecutionException ex) {
			changing = ex.getCause();
		}
		// Never both: certification aborts whichever of the two comes second.
		boolean workCommitted = !committedWork().isEmpty();
		boolean holderChanged = "b".equals(holder());
		assertThat(workCommitted && holderChanged)
			.as("fenced work (%s) and the change of holder (%s) both committed", fenced, changing)
			.isFalse();
		assertThat(workCommitted).as("the fenced work committed").isEqualTo(fenced == null);
		assertThat(holderChanged).as("the change of holder committed").isEqualTo(changing == null);
		assertThat(workCommitted || holderChanged).as("one of them committed").isTrue();
	}

	/**
	 * The narrowest window of the race: a fenced transaction that commits after the
	 * cluster ordered a change of holder, on a cluster node that has not applied that
	 * change yet (held up here behind a write it cannot apply), so that no lock on that
	 * node stands in its way. The commit waits for certification until the node has
	 * caught up; the fence row is in both write sets, so certification fails it. Had the
	 * fenced transaction only read the row, it would pass certification and its work
	 * would commit after the new holder's term began (Galera replays it once the change
	 * of holder's applier aborts it).
	 */
	@Test
	void fencedCommitAfterAChangeOfHolderItsNodeHasNotAppliedYetFailsCertification() throws Exception {
		JdbcLeaseRepository a = repository(this.aPool);
		JdbcLeaseRepository b = repository(this.bPool);
		long term = leaseHeldByA(a, b);
		CountDownLatch commit = new CountDownLatch(1);
		OpenFencedWork open = openFencedWork(a, term, "unapplied", commit);
		CompletableFuture<Long> work = open.result();
		try (Connection holdingUp = DriverManager.getConnection(this.cluster.urlFor("a-race"), this.username,
				this.password); Statement statement = holdingUp.createStatement()) {
			// The first node cannot apply this write, nor any the cluster orders after
			// it.
			statement.execute("FLUSH TABLES " + RACE_HOLD_UP + " WITH READ LOCK");
			new JdbcTemplate(this.bPool).update("INSERT INTO " + RACE_HOLD_UP + " (election_name) VALUES (?)",
					this.election);
			assertThat(b.handOver(this.election, "a", term, "b", Duration.ofMinutes(1))).isTrue();
			assertThat(new JdbcTemplate(this.aPool).queryForObject(
					"SELECT leader_id FROM " + RACE_TABLES.leaseTable() + " WHERE election_name = ?", String.class,
					this.election))
				.as("the lease on the first node, which has not applied the change of holder")
				.isEqualTo("a");
			assertThat(work).as("the fenced transaction, not aborted by the change it has not seen").isNotDone();
			commit.countDown();
			// In the cluster's order, the commit comes after the change of holder.
			await("the fenced commit waits for its certification").atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> state(statement, open.session()), "Waiting for certification"::equals);
			statement.execute("UNLOCK TABLES");
		}
		assertThatThrownBy(() -> work.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(FenceNotConfirmedException.class);
		await("the first node applied the change of holder").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> a.find(this.election).map(LeaseState::leaderId).orElse(null), "b"::equals);
		assertThat(committedWork()).isEmpty();
		assertThat(holder()).isEqualTo("b");
	}

	@Test
	void followersReadOnAnotherNodeWaitsForWhatTheClusterCommittedBefore() throws Exception {
		JdbcLeaseRepository a = repository(this.aPool);
		JdbcLeaseRepository b = new JdbcLeaseRepository(this.bPool, SqlDialect.MYSQL, RACE_TABLES,
				Duration.ofSeconds(10));
		long term = leaseHeldByA(a, b);
		b.heartbeat("b", "b-instance", Duration.ofMinutes(1), -1);
		b.join("b", "b-instance", List.of(this.election));
		assertThat(b.findAll("b", "b-instance")).extracting(LeaseState::leaderId).containsExactly("a");
		CompletableFuture<List<LeaseState>> causal;
		// The second node stops applying the cluster's writes while this connection holds
		// the global read lock: it lags, as a loaded node does.
		try (Connection lagging = DriverManager.getConnection(this.cluster.urlFor("b-race"), this.username,
				this.password); Statement statement = lagging.createStatement()) {
			statement.execute("FLUSH TABLES WITH READ LOCK");
			assertThat(a.handOver(this.election, "a", term, "c", Duration.ofMinutes(1))).isTrue();
			// Without the causal read, the lagging node answers with the lease before the
			// change.
			assertThat(new JdbcTemplate(this.bPool).queryForObject(
					"SELECT leader_id FROM " + RACE_TABLES.leaseTable() + " WHERE election_name = ?", String.class,
					this.election))
				.as("a plain read on the lagging node")
				.isEqualTo("a");
			causal = CompletableFuture.supplyAsync(() -> b.findAll("b", "b-instance"));
			// The follower's read waits for the node to catch up rather than answer with
			// it.
			await("the causal read waits while its node lags").during(Duration.ofSeconds(1))
				.atMost(Duration.ofSeconds(5))
				.until(() -> !causal.isDone());
			statement.execute("UNLOCK TABLES");
		}
		List<LeaseState> seen = causal.get(10, TimeUnit.SECONDS);
		assertThat(seen).extracting(LeaseState::leaderId).containsExactly("c");
		assertThat(seen.get(0).term()).isGreaterThan(term);
	}

	@Test
	void followersReadOnALaggingNodeFallsBackToTheNodesOwnDataAndATakeOverOnThatViewFails() throws Exception {
		JdbcLeaseRepository a = repository(this.aPool);
		// Follower f on the second node: a node id of its own, as the other tests' b
		// reads its elections.
		JdbcLeaseRepository f = repository(this.bPool);
		assertThat(a.create(this.election, "a", Duration.ofMillis(100))).isTrue();
		f.heartbeat("f", "f-instance", Duration.ofMinutes(1), -1);
		f.join("f", "f-instance", List.of(this.election));
		LeaseState expired = await("the second node shows a's lease expired").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> f.findAll("f", "f-instance"), (seen) -> seen.size() == 1 && seen.get(0).expired())
			.get(0);
		LeaseState taken;
		CompletableFuture<Boolean> takeOver;
		try (Connection lagging = DriverManager.getConnection(this.cluster.urlFor("b-race"), this.username,
				this.password); Statement statement = lagging.createStatement()) {
			// The second node cannot apply a write of the work table while this
			// connection holds it; the cluster's later writes wait behind that one, as on
			// a loaded node.
			statement.execute("FLUSH TABLES " + RACE_WORK + " WITH READ LOCK");
			insertWork("held-up", expired.term());
			assertThat(a.takeOver(this.election, "c", LeaseObservation.of(expired), Duration.ofMinutes(1))).isTrue();
			taken = repository(this.observerPool).find(this.election).orElseThrow();
			long started = System.nanoTime();
			List<LeaseState> seen = f.findAll("f", "f-instance");
			Duration took = Duration.ofNanos(System.nanoTime() - started);
			// Not the wait for the node to catch up, nor a failure: the node's own, older
			// row.
			assertThat(took).as("the read within its statement timeout")
				.isLessThan(RACE_STATEMENT_TIMEOUT.plusMillis(500));
			assertThat(seen).singleElement().satisfies((lease) -> {
				assertThat(lease.leaderId()).isEqualTo("a");
				assertThat(lease.version()).isEqualTo(expired.version());
				assertThat(lease.expired()).isTrue();
			});
			// A take-over decided on that view runs on the node's older row; Galera
			// certifies
			// it against c's, ordered before it, once the node replicates again.
			takeOver = CompletableFuture
				.supplyAsync(() -> f.takeOver(this.election, "f", LeaseObservation.of(expired), Duration.ofMinutes(1)));
			await("f's take-over does not commit while its node lags").during(Duration.ofMillis(200))
				.atMost(Duration.ofSeconds(1))
				.until(() -> !takeOver.isDone() || !Boolean.TRUE.equals(takeOver.getNow(null)));
			statement.execute("UNLOCK TABLES");
		}
		try {
			assertThat(takeOver.get(10, TimeUnit.SECONDS)).as("f's take-over on the stale view").isFalse();
		}
		catch (ExecutionException ex) {
			assertThat(ex.getCause()).as("f's take-over fails its certification")
				.hasRootCauseInstanceOf(SQLException.class)
				.satisfies((failure) -> assertThat(
						((SQLException) NestedExceptionUtils.getRootCause(failure)).getErrorCode())
					.isEqualTo(1213));
		}
		LeaseState after = await("the second node catches up").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> f.findAll("f", "f-instance"),
					(seen) -> seen.size() == 1 && seen.get(0).version() >= taken.version())
			.get(0);
		assertThat(after.leaderId()).isEqualTo("c");
		assertThat(after.term()).isEqualTo(taken.term());
		assertThat(repository(this.observerPool).find(this.election).orElseThrow().leaderId()).isEqualTo("c");
	}

	@Test
	void leaderWhosePoolReconnectsToAnotherNodeOfTheClusterKeepsLeadingWithItsTerm() throws Exception {
		SwitchableDataSource dataSource = new SwitchableDataSource(this.aPool);
		LeadershipRecorder events = new LeadershipRecorder();
		try (ElectionNode a = new ElectionNode("a", this.election, repository(dataSource), SETTINGS, events)) {
			long term = leadership(a);
			// As a pool does after its node failed: the next connections go to another
			// node.
			dataSource.switchTo(this.bPool);
			// A renewal is a refresh of a's session, its node row: its version moves on.
			long switched = leaseRow().holderVersion();
			Duration observed = LEASE.plus(RENEW.multipliedBy(2));
			await("a keeps leading with term " + term + " through the second node").during(observed)
				.atMost(observed.plus(Duration.ofSeconds(5)))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> a.isLeader() && a.election().term() == term && leaseRow().term() == term);
			assertThat(leaseRow().holderVersion()).as("renewals through the second node").isGreaterThan(switched + 1);
			assertThat(events.revocationsOf("a")).isEmpty();
		}
	}

	@Test
	void leaderWhosePoolFailsOverToAServerWithOtherDataStepsDownAndTakesANewTerm() throws Exception {
		try (HikariDataSource other = TestDatabase.MYSQL.dataSource(2)) {
			SwitchableDataSource dataSource = new SwitchableDataSource(this.aPool);
			LeadershipRecorder events = new LeadershipRecorder();
			try (ElectionNode a = new ElectionNode("a", this.election, repository(dataSource), SETTINGS, events)) {
				long term = leadership(a);
				// A server outside the cluster that has the same rows, as an asynchronous
				// replica would, but not necessarily the newest writes.
				this.cluster.recreateTables(other, RACE_TABLES);
				JdbcTemplate replica = new JdbcTemplate(other);
				for (String table : RACE_TABLES.allTables()) {
					copyRows(table, replica);
				}
				dataSource.switchTo(other);
				await("a steps down because the server changed").atMost(AFTER_FORCING.plus(Duration.ofSeconds(5)))
					.until(() -> events.revocationsOf("a")
						.stream()
						.anyMatch((event) -> event.reason() == RevocationReason.SERVER_CHANGED));
				// A lease after its first read of the other server, which may have lost a
				// newer lease.
				await("a leads again with a new term").atMost(AFTER_FORCING.plus(LEASE).plus(Duration.ofSeconds(5)))
					.until(() -> a.isLeader() && a.election().term() > term);
				assertThat(replica.queryForObject(
						"SELECT term FROM " + RACE_TABLES.leaseTable() + " WHERE election_name = ?", Long.class,
						this.election))
					.isEqualTo(a.election().term());
			}
			finally {
				this.cluster.dropTables(other, RACE_TABLES.allTables().toArray(String[]::new));
			}
		}
	}

	/**
	 * Wait until a node that was started leads, and return its term.
	 */
	private static long leadership(ElectionNode node) {
		node.start();
		await(node + " leads").atMost(AFTER_CRASH.plus(Duration.ofSeconds(5)))
			.pollInterval(Duration.ofMillis(20))
			.until(node::isLeader);
		return node.election().term();
	}

	/**
	 * @return the lease as the cluster committed it, read causally
	 */
	private LeaseState leaseRow() {
		return repository(this.observerPool).find(this.election).orElseThrow();
	}

	/** Copy every row of a table from the cluster to another server. */
	private void copyRows(String table, JdbcTemplate to) {
		for (Map<String, Object> row : this.check.queryForList("SELECT * FROM " + table)) {
			String columns = String.join(", ", row.keySet());
			String values = String.join(", ", Collections.nCopies(row.size(), "?"));
			to.update("INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")", row.values().toArray());
		}
	}

	/**
	 * A data source that hands out connections of one pool until told to use another, as
	 * a pool does whose server address now leads elsewhere.
	 */
	private static final class SwitchableDataSource extends DelegatingDataSource {

		SwitchableDataSource(DataSource initial) {
			super(initial);
		}

		void switchTo(DataSource target) {
			setTargetDataSource(target);
		}

	}

	private JdbcLeaseRepository repository(DataSource dataSource) {
		return new JdbcLeaseRepository(dataSource, SqlDialect.MYSQL, RACE_TABLES, RACE_STATEMENT_TIMEOUT);
	}

	/**
	 * Node a holds the lease, and node b's cluster node has seen so.
	 * @return a's term
	 */
	private long leaseHeldByA(JdbcLeaseRepository a, JdbcLeaseRepository b) {
		assertThat(a.create(this.election, "a", Duration.ofMinutes(1))).isTrue();
		long term = a.find(this.election).orElseThrow().term();
		await("the second node applied the lease").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> b.find(this.election).filter((lease) -> lease.term() == term).isPresent());
		return term;
	}

	/**
	 * A data source whose connections, asked to commit, say so and wait for the gate.
	 */
	private static DataSource commitWaits(DataSource dataSource, CountDownLatch committing, CountDownLatch gate) {
		return new DelegatingDataSource(dataSource) {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, args) -> {
							if (method.getName().equals("commit")) {
								committing.countDown();
								awaitQuietly(gate);
							}
							try {
								return method.invoke(connection, args);
							}
							catch (InvocationTargetException ex) {
								throw ex.getCause();
							}
						});
			}

		};
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			if (!latch.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("gave up waiting");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Start fenced work of node a, on the first cluster node, that inserts a row and
	 * waits for the gate before it commits; return once the row is written.
	 */
	private OpenFencedWork openFencedWork(JdbcLeaseRepository a, long term, String id, CountDownLatch gate)
			throws InterruptedException {
		CountDownLatch working = new CountDownLatch(1);
		AtomicLong session = new AtomicLong();
		CompletableFuture<Long> result = CompletableFuture
			.supplyAsync(() -> a.runFenced(this.election, "a", term, Duration.ofSeconds(30), (fencedTerm) -> {
				insertWork(id, fencedTerm);
				session.set(new JdbcTemplate(this.aPool).queryForObject("SELECT CONNECTION_ID()", Long.class));
				working.countDown();
				awaitQuietly(gate);
				return fencedTerm;
			}));
		assertThat(working.await(10, TimeUnit.SECONDS)).as("the fenced work started").isTrue();
		return new OpenFencedWork(result, session.get());
	}

	/**
	 * Fenced work under way.
	 *
	 * @param result what the fenced run returns
	 * @param session the server's id of its connection's session
	 */
	private record OpenFencedWork(CompletableFuture<Long> result, long session) {
	}

	private static @Nullable String state(Statement statement, long session) throws SQLException {
		try (ResultSet process = statement
			.executeQuery("SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = " + session)) {
			return process.next() ? process.getString(1) : null;
		}
	}

	private int insertWork(String id, long term) {
		return new JdbcTemplate(this.aPool).update(
				"INSERT INTO " + RACE_WORK + " (election_name, id, term) VALUES (?, ?, ?)", this.election, id, term);
	}

	/**
	 * @return the ids of the committed work
	 */
	private List<String> committedWork() {
		return this.check.queryForList("SELECT id FROM " + RACE_WORK + " WHERE election_name = ?", String.class,
				this.election);
	}

	private @Nullable String holder() {
		return this.check.queryForObject(
				"SELECT leader_id FROM " + RACE_TABLES.leaseTable() + " WHERE election_name = ?", String.class,
				this.election);
	}

	@Override
	protected ElectionDatabase createDatabase() {
		List<String> urls = Arrays.stream(System.getenv(URLS).split(",")).map(String::trim).toList();
		String username = variable("USERNAME", "root");
		String password = variable("PASSWORD", "");
		this.username = username;
		this.password = password;
		Set<String> clusters = new HashSet<>();
		Set<String> members = new HashSet<>();
		for (String url : urls) {
			List<String> member = member(url, username, password);
			clusters.add(member.get(0));
			members.add(member.get(1));
		}
		if (urls.size() < 2 || clusters.size() != 1 || members.size() != urls.size()) {
			throw new IllegalStateException(URLS + " must name at least two different nodes of one Galera cluster, but "
					+ urls + " are nodes " + members + " of clusters " + clusters);
		}
		System.out.println("[test databases] Galera: " + urls.size() + " nodes " + members + " of cluster " + clusters);
		this.cluster = ElectionDatabase.cluster(urls, username, password);
		return this.cluster;
	}

	/**
	 * The cluster and the node name of a synced Galera node.
	 */
	private static List<String> member(String url, String username, String password) {
		try (Connection connection = DriverManager.getConnection(url, username, password);
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT @@wsrep_on, @@wsrep_cluster_name, @@wsrep_node_name,"
						+ " (SELECT variable_value FROM information_schema.global_status"
						+ " WHERE variable_name = 'WSREP_LOCAL_STATE_COMMENT')")) {
			rs.next();
			if (!rs.getBoolean(1) || !"Synced".equals(rs.getString(4))) {
				throw new IllegalStateException(url + " is not a synced Galera node (wsrep_on=" + rs.getString(1)
						+ ", state " + rs.getString(4) + ")");
			}
			return new ArrayList<>(List.of(rs.getString(2), rs.getString(3)));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot reach Galera node " + url + " named by " + URLS
					+ " (start a cluster with .ci/galera start): " + ex.getMessage(), ex);
		}
	}

	private static String variable(String suffix, String fallback) {
		String value = System.getenv("LEADER_ELECTION_TEST_GALERA_" + suffix);
		return (value != null) ? value : fallback;
	}

}
