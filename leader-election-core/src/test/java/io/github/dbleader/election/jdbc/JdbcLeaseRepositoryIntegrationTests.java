package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.List;

import io.github.dbleader.test.TestDatabase;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NotLeaderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Every statement of {@link JdbcLeaseRepository} against each real database.
 */
class JdbcLeaseRepositoryIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(5);

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
		database.dropTables(this.dataSource, TABLES.leaseTable(), TABLES.candidateTable(), TABLES.fenceTable());
		LeaseSchema.create(this.dataSource, SqlDialect.forName(database.platform()), TABLES);
		return new JdbcLeaseRepository(this.dataSource, SqlDialect.forName(database.platform()), TABLES, Duration.ofSeconds(1));
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void createRenewAndRead(TestDatabase database) {
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
		assertThat(repository.renew("e", "a", state.term(), LEASE)).isTrue();
		assertThat(repository.renew("e", "b", state.term(), LEASE)).isFalse();
		assertThat(repository.renew("e", "a", state.term() + 1, LEASE)).isFalse();
		assertThat(repository.find("e").orElseThrow().version()).isEqualTo(state.version() + 1);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void takeOverOnlyExpiredObservedVersionWithGreaterTerm(TestDatabase database) throws Exception {
		JdbcLeaseRepository repository = repository(database);
		repository.create("e", "a", Duration.ofMillis(200));
		LeaseState state = repository.find("e").orElseThrow();
		assertThat(repository.takeOver("e", "b", state.version(), LEASE)).isFalse();
		await("the lease runs out at the database clock").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> repository.find("e").orElseThrow().expired());
		assertThat(repository.takeOver("e", "b", state.version() - 1, LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", -1, LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", state.version(), LEASE)).isTrue();
		LeaseState taken = repository.find("e").orElseThrow();
		assertThat(taken.leaderId()).isEqualTo("b");
		assertThat(taken.term()).isGreaterThan(state.term());
		assertThat(repository.renew("e", "a", state.term(), LEASE)).isFalse();
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
		assertThat(repository.takeOver("e", "a", -1, LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", -1, LEASE)).isTrue();
		assertThat(repository.find("e").orElseThrow().term()).isGreaterThan(state.term());
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void handoverAndReelectionRequestsBlockRenewal(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		repository.create("e", "a", LEASE);
		long term = repository.find("e").orElseThrow().term();
		assertThat(repository.requestHandover("e", "b")).isTrue();
		assertThat(repository.renew("e", "a", term, LEASE)).isFalse();
		assertThat(repository.find("e").orElseThrow().handoverTo()).isEqualTo("b");
		assertThat(repository.handOver("e", "a", term, "b", LEASE)).isTrue();
		LeaseState handed = repository.find("e").orElseThrow();
		assertThat(handed.leaderId()).isEqualTo("b");
		assertThat(handed.handoverTo()).isNull();
		assertThat(handed.term()).isGreaterThan(term);
		assertThat(repository.renew("e", "b", handed.term(), LEASE)).isTrue();
		assertThat(repository.requestReelection("e")).isTrue();
		assertThat(repository.renew("e", "b", handed.term(), LEASE)).isFalse();
		assertThat(repository.find("e").orElseThrow().reelectionRequested()).isTrue();
		assertThat(repository.reacquire("e", "b", handed.term(), LEASE)).isTrue();
		assertThat(repository.find("e").orElseThrow().term()).isGreaterThan(handed.term());
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void candidates(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		assertThat(repository.heartbeat("e", "b", "b-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("e", "a", "a-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("e", "a", "a-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("other", "c", "c-1", LEASE)).isEqualTo(Candidacy.HELD);
		List<Candidate> candidates = repository.liveCandidates("e", LEASE);
		assertThat(candidates).extracting(Candidate::nodeId).containsExactly("a", "b");
		assertThat(candidates.get(0).lastSeen()).isAfterOrEqualTo(candidates.get(0).firstSeen());
		repository.removeCandidate("e", "a", "a-1");
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("b");
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void nodeIdOfALiveInstanceIsNotTakenByAnother(TestDatabase database) {
		JdbcLeaseRepository repository = repository(database);
		Duration staleAfter = Duration.ofMillis(300);
		assertThat(repository.heartbeat("e", "a", "first", staleAfter)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("e", "a", "second", staleAfter)).isEqualTo(Candidacy.IN_USE);
		// The second instance stopping leaves the first one's row alone.
		repository.removeCandidate("e", "a", "second");
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
		// Once the first instance's heartbeats have stopped for that long, the second takes the id over.
		Candidacy later = await("the first instance's row goes stale").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> repository.heartbeat("e", "a", "second", staleAfter), (candidacy) -> candidacy != Candidacy.IN_USE);
		assertThat(later).isEqualTo(Candidacy.INHERITED);
		assertThat(repository.heartbeat("e", "a", "second", staleAfter)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("e", "a", "first", staleAfter)).isEqualTo(Candidacy.IN_USE);
		repository.removeCandidate("e", "a", "second");
		assertThat(repository.liveCandidates("e", LEASE)).isEmpty();
		assertThat(repository.heartbeat("e", "a", "first", staleAfter)).isEqualTo(Candidacy.HELD);
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
		assertThat(repository.renew("e", "a", term, LEASE)).isTrue();
		assertThat(repository.renew("e", "a", term, LEASE)).isTrue();
		assertThat(repository.requestHandover("e", "b")).isTrue();
		assertThat(repository.requestHandover("e", "b")).isTrue();
		assertThat(repository.requestReelection("e")).isTrue();
		assertThat(repository.requestReelection("e")).isTrue();
		assertThat(repository.reacquire("e", "a", term, LEASE)).isTrue();
		assertThat(repository.heartbeat("e", "a", "a-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("e", "a", "a-1", LEASE)).isEqualTo(Candidacy.HELD);
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
	}

}
