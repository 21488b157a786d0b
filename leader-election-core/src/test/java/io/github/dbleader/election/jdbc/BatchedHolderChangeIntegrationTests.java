package io.github.dbleader.election.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The batched changes of holder of {@link JdbcLeaseRepository} against each real database
 * ({@link JdbcLeaseRepository#takeOverAll}, {@code handOverAll}, {@code yieldAll},
 * {@code reacquireAll}): every row of a batch is changed only under the single-row
 * statement's conditions, with its own observed version or term; the answer names exactly
 * the rows changed; the fence rows move with them in the same transaction; a fence row
 * that fenced work holds is skipped, not waited for.
 */
class BatchedHolderChangeIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(5);

	private static final Duration MOMENT = Duration.ofMillis(1);

	private static final LeaseTables TABLES = new LeaseTables("batch_test_lease", "batch_test_candidate");

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	@AfterEach
	void close() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	private JdbcLeaseRepository repository(TestDatabase database) {
		return repository(database, (dataSource) -> dataSource);
	}

	private JdbcLeaseRepository repository(TestDatabase database,
			java.util.function.UnaryOperator<DataSource> wrapper) {
		return repository(database, wrapper, Duration.ofSeconds(1));
	}

	private JdbcLeaseRepository repository(TestDatabase database, java.util.function.UnaryOperator<DataSource> wrapper,
			Duration statementTimeout) {
		this.dataSource = database.dataSource(database.url(), 4);
		database.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		SqlDialect dialect = SqlDialect.forName(database.platform());
		LeaseSchema.create(this.dataSource, dialect, TABLES);
		this.jdbc = new JdbcTemplate(this.dataSource);
		return new JdbcLeaseRepository(wrapper.apply(this.dataSource), dialect, TABLES, statementTimeout);
	}

	/**
	 * Leases of node a, which has no session, that have run out at the database clock, by
	 * election: what a follower saw of them.
	 */
	private static Map<String, LeaseObservation> expiredLeasesOfA(JdbcLeaseRepository repository, String... elections) {
		Map<String, LeaseObservation> versions = new LinkedHashMap<>();
		for (String election : elections) {
			assertThat(repository.create(election, "a", MOMENT)).isTrue();
		}
		await("the leases run out at the database clock").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> List.of(elections).stream().allMatch((e) -> repository.find(e).orElseThrow().expired()));
		for (String election : elections) {
			versions.put(election, LeaseObservation.of(repository.find(election).orElseThrow()));
		}
		return versions;
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void eachRowOfAPartlyOvertakenBatchIsTakenOnlyAtItsObservedVersion(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Map<String, LeaseObservation> observed = expiredLeasesOfA(repository, "e1", "e2", "e3", "e4", "e5", "e6");
		long e1Term = repository.find("e1").orElseThrow().term();
		// After b observed them, before its batch: c takes e2 over, for a moment only (it
		// has expired again, at another version); a re-acquires e3, for a moment only; an
		// operator asks for e4 to go to c; a gives e5 and e6 up (vacant: taken at any
		// version), and an operator asks for e6 to go to c.
		assertThat(repository.takeOver("e2", "c", observed.get("e2"), MOMENT)).isTrue();
		assertThat(repository.reacquire("e3", "a", repository.find("e3").orElseThrow().term(), MOMENT)).isTrue();
		assertThat(repository.requestHandover("e4", "c")).isTrue();
		for (String vacant : List.of("e5", "e6")) {
			assertThat(repository.yield(vacant, "a", repository.find(vacant).orElseThrow().term())).isTrue();
			observed.put(vacant, LeaseObservation.vacant());
		}
		assertThat(repository.requestHandover("e6", "c")).isTrue();
		await("the changed leases run out too").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> repository.find("e2").orElseThrow().expired()
					&& repository.find("e3").orElseThrow().expired());
		Map<String, LeaseState> before = leases(repository, "e2", "e3", "e4", "e6");

		List<LeaseState> taken = repository.takeOverAll("b", observed, LEASE);

		assertThat(taken).extracting(LeaseState::election).containsExactlyInAnyOrder("e1", "e5");
		assertThat(taken).allSatisfy((state) -> {
			assertThat(state.leaderId()).isEqualTo("b");
			assertThat(state.expired()).isFalse();
			LeaseState now = repository.find(state.election()).orElseThrow();
			assertThat(List.of(state.term(), state.version())).containsExactly(now.term(), now.version());
		});
		assertThat(repository.find("e1").orElseThrow().term()).isGreaterThan(e1Term);
		assertThat(leases(repository, "e2", "e3", "e4", "e6")).isEqualTo(before);
		// The fence rows moved with the leases, in the same transaction.
		for (LeaseState state : taken) {
			assertThat(fence(state.election())).containsExactly("b", state.term());
		}
		assertThat(fence("e2")).containsExactly("c", repository.find("e2").orElseThrow().term());
		assertThat(repository.takeOverAll("b", Map.of(), LEASE)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void deposedHoldersFencedCommitIsRefusedAfterABatchTookItsLease(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Map<String, LeaseObservation> observed = expiredLeasesOfA(repository, "e1", "e2");
		long term = repository.find("e1").orElseThrow().term();
		assertThat(repository.takeOverAll("b", observed, LEASE)).hasSize(2);
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> repository.runFenced("e1", "a", term, LEASE, (t) -> t));
		long taken = repository.find("e1").orElseThrow().term();
		Long fencedTerm = repository.runFenced("e1", "b", taken, LEASE, (t) -> t);
		assertThat(fencedTerm).isEqualTo(taken);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void fenceRowThatFencedWorkHoldsIsSkippedNotWaitedForAndTakenOnceTheWorkEnds(TestDatabase database)
			throws Exception {
		JdbcLeaseRepository repository = repository(database);
		Map<String, LeaseObservation> observed = expiredLeasesOfA(repository, "e1", "e2", "e3");
		try (Connection work = this.dataSource.getConnection()) {
			holdFence(database, work, "e2", repository.find("e2").orElseThrow().term());
			long started = System.nanoTime();
			List<LeaseState> taken = repository.takeOverAll("b", observed, LEASE);
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(900));
			assertThat(taken).extracting(LeaseState::election).containsExactlyInAnyOrder("e1", "e3");
			assertThat(repository.find("e2").orElseThrow().leaderId()).isEqualTo("a");
			work.rollback();
			work.setAutoCommit(true);
		}
		assertThat(repository.takeOverAll("b", Map.of("e2", observed.get("e2")), LEASE))
			.extracting(LeaseState::election)
			.containsExactly("e2");
		assertThat(fence("e2")).containsExactly("b", repository.find("e2").orElseThrow().term());
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void batchThatWaitedForAConcurrentRenewalAndHandOverRequestLeavesThoseRowsAlone(TestDatabase database)
			throws Exception {
		JdbcLeaseRepository repository = repository(database);
		Map<String, LeaseObservation> observed = expiredLeasesOfA(repository, "e1", "e2", "e3");
		CompletableFuture<List<LeaseState>> batch;
		try (Connection other = this.dataSource.getConnection()) {
			// Under way, not committed, while b's batch starts: a's renewal of e2 (for a
			// moment: it stays expired, at the next version) and an operator's request to
			// hand e3 to c.
			other.setAutoCommit(false);
			JdbcTemplate otherJdbc = new JdbcTemplate(new SingleConnectionDataSource(other, true));
			assertThat(otherJdbc
				.update("UPDATE " + TABLES.leaseTable() + " SET version = version + 1 WHERE election_name = 'e2'"))
				.isOne();
			assertThat(otherJdbc.update("UPDATE " + TABLES.leaseTable()
					+ " SET handover_to = 'c', version = version + 1 WHERE election_name = 'e3'"))
				.isOne();
			batch = CompletableFuture.supplyAsync(() -> repository.takeOverAll("b", observed, LEASE));
			assertThatException().as("the batch waits for the rows under way")
				.isThrownBy(() -> batch.get(200, TimeUnit.MILLISECONDS));
			other.commit();
			other.setAutoCommit(true);
		}
		assertThat(batch.get(5, TimeUnit.SECONDS)).extracting(LeaseState::election).containsExactly("e1");
		assertThat(leases(repository, "e2", "e3").values()).extracting(LeaseState::leaderId).containsOnly("a");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void batchWhoseAnswerIsLostAfterItsCommitThrowsAndTheRowsTellTheTruth(TestDatabase database) {
		AtomicBoolean loseCommit = new AtomicBoolean();
		JdbcLeaseRepository repository = repository(database, (dataSource) -> losingCommits(dataSource, loseCommit));
		Map<String, LeaseObservation> observed = expiredLeasesOfA(repository, "e1", "e2");
		loseCommit.set(true);
		// Taken for a moment only, so that the leases have run out again when b tries
		// again.
		assertThatException().isThrownBy(() -> repository.takeOverAll("b", observed, MOMENT));
		loseCommit.set(false);
		// Committed: the rows name b with a new term, and a second batch at the versions
		// b observed before takes nothing: b learns the truth from its next read.
		Map<String, LeaseState> lost = leases(repository, "e1", "e2");
		assertThat(lost.values()).extracting(LeaseState::leaderId).containsOnly("b");
		await("the leases run out again").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> repository.find("e1").orElseThrow().expired()
					&& repository.find("e2").orElseThrow().expired());
		assertThat(repository.takeOverAll("b", observed, LEASE)).isEmpty();
		assertThat(leases(repository, "e1", "e2")).isEqualTo(lost);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void handOverYieldAndReacquireChangeEachRowOnlyWithItsOwnTermAndSkipBusyFences(TestDatabase database)
			throws Exception {
		JdbcLeaseRepository repository = repository(database);
		Map<String, Long> terms = new LinkedHashMap<>();
		for (String election : List.of("h1", "h2", "h3", "y1", "y2", "y3", "r1", "r2")) {
			assertThat(repository.create(election, "a", LEASE)).isTrue();
			terms.put(election, repository.find(election).orElseThrow().term());
		}
		// Meanwhile h2 and r2 were reacquired (a new term), and y2 is held by c now.
		assertThat(repository.reacquire("h2", "a", terms.get("h2"), LEASE)).isTrue();
		assertThat(repository.reacquire("r2", "a", terms.get("r2"), LEASE)).isTrue();
		assertThat(repository.handOver("y2", "a", terms.get("y2"), "c", LEASE)).isTrue();
		Map<String, LeaseState> moved = leases(repository, "h2", "r2", "y2");
		try (Connection work = this.dataSource.getConnection()) {
			// a's own fenced work on h3 and y3 is still running.
			holdFence(database, work, "h3", terms.get("h3"));
			List<LeaseState> handed = repository.handOverAll("a", pick(terms, "h1", "h2", "h3"), "b", LEASE);
			assertThat(handed).extracting(LeaseState::election).containsExactly("h1");
			assertThat(handed.get(0).leaderId()).isEqualTo("b");
			assertThat(handed.get(0).term()).isGreaterThan(terms.get("h1"));
			assertThat(fence("h1")).containsExactly("b", handed.get(0).term());
			work.rollback();
			holdFence(database, work, "y3", terms.get("y3"));
			List<LeaseState> yielded = repository.yieldAll("a", pick(terms, "y1", "y2", "y3"));
			assertThat(yielded).extracting(LeaseState::election).containsExactly("y1");
			assertThat(yielded.get(0).vacant()).isTrue();
			assertThat(yielded.get(0).yieldedBy()).isEqualTo("a");
			assertThat(fence("y1").get(0)).isNull();
			work.rollback();
			work.setAutoCommit(true);
		}
		List<LeaseState> reacquired = repository.reacquireAll("a", pick(terms, "r1", "r2"), LEASE);
		assertThat(reacquired).extracting(LeaseState::election).containsExactly("r1");
		assertThat(reacquired.get(0).term()).isGreaterThan(terms.get("r1"));
		assertThat(fence("r1")).containsExactly("a", reacquired.get(0).term());
		assertThat(leases(repository, "h2", "r2", "y2")).isEqualTo(moved);
		assertThat(leases(repository, "h3", "y3").values()).extracting(LeaseState::leaderId).containsOnly("a");
		// The fenced work of the term handed over can no longer commit.
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> repository.runFenced("h1", "a", terms.get("h1"), LEASE, (t) -> t));
	}

	private static Map<String, Long> pick(Map<String, Long> terms, String... elections) {
		Map<String, Long> picked = new LinkedHashMap<>();
		for (String election : elections) {
			picked.put(election, terms.get(election));
		}
		return picked;
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void createAllCreatesEveryListedLeaseWithItsFenceRowAndAnswersWithThem(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		List<String> elections = java.util.stream.IntStream.range(0, 50).mapToObj((i) -> "new-" + i).toList();

		List<LeaseState> created = repository.createAll("a", elections, LEASE);

		assertThat(created).extracting(LeaseState::election).containsExactlyInAnyOrderElementsOf(elections);
		assertThat(created).allSatisfy((state) -> {
			assertThat(state.leaderId()).isEqualTo("a");
			assertThat(state.expired()).isFalse();
			LeaseState now = repository.find(state.election()).orElseThrow();
			assertThat(List.of(state.term(), state.version())).containsExactly(now.term(), now.version());
			assertThat(fence(state.election())).containsExactly("a", state.term());
		});
		assertThat(repository.createAll("a", List.of(), LEASE)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void createAllOfABatchWithALeaseAnotherNodeCreatedCreatesNoneOfItAndLeavesThatLeaseAlone(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		// b created e2 after a read that e2 had no row: a must not take b's row for its
		// own.
		assertThat(repository.create("e2", "b", LEASE)).isTrue();
		Map<String, LeaseState> before = leases(repository, "e2");

		assertThat(repository.createAll("a", List.of("e1", "e2", "e3"), LEASE)).isEmpty();

		assertThat(repository.find("e1")).isEmpty();
		assertThat(repository.find("e3")).isEmpty();
		assertThat(leases(repository, "e2")).isEqualTo(before);
		assertThat(fence("e2")).containsExactly("b", before.get("e2").term());
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLES.fenceTable(), Integer.class)).isOne();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void createAllOfABatchThatLosesADeadlockCreatesNoneOfItAndAnswersWithNone(TestDatabase database) {
		AtomicBoolean loseDeadlock = new AtomicBoolean();
		JdbcLeaseRepository repository = repository(database,
				(dataSource) -> losingADeadlock(dataSource, TABLES.fenceTable(), loseDeadlock));
		List<String> elections = List.of("e1", "e2", "e3");
		loseDeadlock.set(true);

		// The leases are inserted, then the write of their fence rows is chosen as the
		// victim of a deadlock (or, on Galera, of a certification conflict): no
		// exception, nothing created, nothing left behind; the next round's read says the
		// leases have no row.
		assertThat(repository.createAll("a", elections, LEASE)).isEmpty();

		assertThat(loseDeadlock).isFalse();
		assertThat(elections).allSatisfy((election) -> assertThat(repository.find(election)).isEmpty());
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLES.fenceTable(), Integer.class)).isZero();
		assertThat(repository.createAll("a", elections, LEASE)).extracting(LeaseState::election)
			.containsExactlyInAnyOrderElementsOf(elections);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void nodesCreatingOverlappingBatchesAtOnceCreateEachLeaseOnceAndEachAnswersExactlyItsOwn(TestDatabase database)
			throws Exception {
		// On H2 each insert waits for the batch that holds a key it needs; on a busy
		// machine the
		// chain of three took longer than a second. What is tested is who created what.
		JdbcLeaseRepository repository = repository(database, (dataSource) -> dataSource, Duration.ofSeconds(10));
		List<String> elections = java.util.stream.IntStream.range(0, 300).mapToObj((i) -> "e" + i).toList();
		Map<String, List<String>> batches = Map.of("a", elections.subList(0, 200), "b", elections.subList(100, 300),
				"c", elections.subList(50, 250));
		java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(batches.size());
		Map<String, CompletableFuture<List<LeaseState>>> answers = new HashMap<>();
		batches.forEach((node, batch) -> answers.put(node, CompletableFuture.supplyAsync(() -> {
			try {
				start.await(5, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			return repository.createAll(node, batch, LEASE);
		})));
		Map<String, String> creators = new HashMap<>();
		for (Map.Entry<String, CompletableFuture<List<LeaseState>>> answer : answers.entrySet()) {
			for (LeaseState state : answer.getValue().get(20, TimeUnit.SECONDS)) {
				assertThat(creators.put(state.election(), answer.getKey())).as("created twice: %s", state.election())
					.isNull();
			}
		}
		// Whatever exists was created by exactly the node whose answer lists it.
		for (String election : elections) {
			String leader = repository.find(election).map(LeaseState::leaderId).orElse(null);
			assertThat(leader).as(election).isEqualTo(creators.get(election));
		}
		assertThat(creators).as("at least one batch went through").isNotEmpty();
	}

	private Map<String, LeaseState> leases(JdbcLeaseRepository repository, String... elections) {
		Map<String, LeaseState> leases = new HashMap<>();
		for (String election : elections) {
			LeaseState state = repository.find(election).orElseThrow();
			// Without the clock columns, which move between two reads.
			leases.put(election,
					new LeaseState(state.election(), state.leaderId(), state.term(), state.version(),
							state.acquiredAt(), state.renewedAt(), state.expiresAt(), state.handoverTo(),
							state.reelectionRequested(), state.yieldedBy(), false, true, java.time.Instant.EPOCH,
							state.holderVersion(), state.sessionEnded()));
		}
		return leases;
	}

	private List<Object> fence(String election) {
		return this.jdbc.queryForObject(
				"SELECT leader_id, term FROM " + TABLES.fenceTable() + " WHERE election_name = ?",
				(rs, row) -> java.util.Arrays.asList(rs.getString(1), rs.getLong(2)), election);
	}

	/**
	 * Open a fenced transaction of node a on the connection, as a job of the deposed
	 * holder would.
	 */
	private static void holdFence(TestDatabase database, Connection connection, String election, long term)
			throws SQLException {
		connection.setAutoCommit(false);
		new NamedParameterJdbcTemplate(new SingleConnectionDataSource(connection, true)).queryForList(
				SqlDialect.forName(database.platform())
					.fence(TABLES.fenceTable(), TABLES.leaseTable(), TABLES.nodesTable()),
				new MapSqlParameterSource().addValue("election", election)
					.addValue("node", "a")
					.addValue("term", term)
					.addValue("seconds", 60));
	}

	/**
	 * Commits for real, then throws, as if the connection broke before the answer
	 * arrived.
	 */
	private static DataSource losingCommits(DataSource target, AtomicBoolean loseCommit) {
		return new InterceptingDataSource(target, (connection, method, args, proceed) -> {
			Object result = proceed.call();
			if (method.getName().equals("commit") && loseCommit.get()) {
				throw new SQLException("connection lost after the commit was sent", "08006");
			}
			return result;
		});
	}

	/**
	 * Once armed, fails the first statement that writes the given table as the server
	 * fails the victim of a deadlock: the transaction is rolled back.
	 */
	private static DataSource losingADeadlock(DataSource target, String table, AtomicBoolean armed) {
		return new InterceptingDataSource(target, (connection, method, args, proceed) -> {
			if (method.getName().equals("prepareStatement") && ((String) args[0]).contains(" " + table + " ")
					&& armed.compareAndSet(true, false)) {
				connection.rollback();
				throw new SQLTransactionRollbackException(
						"Deadlock found when trying to get lock; try restarting transaction", "40001", 1213);
			}
			return proceed.call();
		});
	}

	/**
	 * Hands every call on its connections to an interceptor, which may proceed with it.
	 */
	private static final class InterceptingDataSource extends DelegatingDataSource {

		private final Interceptor interceptor;

		InterceptingDataSource(DataSource target, Interceptor interceptor) {
			super(target);
			this.interceptor = interceptor;
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection connection = super.getConnection();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> this.interceptor.intercept(connection, method, args, () -> {
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					}));
		}

		interface Interceptor {

			Object intercept(Connection connection, Method method, Object[] args, Proceed proceed) throws Throwable;

		}

		interface Proceed {

			Object call() throws Throwable;

		}

	}

}
