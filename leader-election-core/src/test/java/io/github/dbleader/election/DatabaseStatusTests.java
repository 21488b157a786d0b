package io.github.dbleader.election;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DatabaseStatus}: what it logs as the heartbeat fails and recovers, and
 * the wait for the database at start-up, on a fake clock.
 */
class DatabaseStatusTests {

	private final FakeClock clock = new FakeClock();

	private final DatabaseStatus status = new DatabaseStatus("a", new ElectionSettings(Duration.ofSeconds(10),
			Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(1)), this.clock);

	private final Logger logger = (Logger) LoggerFactory.getLogger(DatabaseStatus.class);

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	private Level level;

	@BeforeEach
	void captureTheLog() {
		this.level = this.logger.getLevel();
		this.logger.setLevel(Level.DEBUG);
		this.logged.start();
		this.logger.addAppender(this.logged);
	}

	@AfterEach
	void restoreTheLog() {
		this.logger.detachAppender(this.logged);
		this.logger.setLevel(this.level);
	}

	@Test
	void waitingNodeIsUnreachableAtOnceAndCountsTheWaitUntilPrepared() {
		assertThat(this.status.waiting()).isFalse();
		this.status.preparationFailed(new DataAccessResourceFailureException("refused"));
		assertThat(this.status.waiting()).isTrue();
		// Unreachable at once, not only after lease - guard as for a database lost later.
		assertThat(this.status.reachable()).isFalse();
		this.clock.advance(Duration.ofSeconds(3));
		this.status.preparationFailed(new DataAccessResourceFailureException("refused"));
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(this.status.unreachableFor()).isEqualTo(Duration.ofSeconds(5));
		this.status.prepared();
		assertThat(this.status.waiting()).isFalse();
		assertThat(this.status.reachable()).isTrue();
		assertThat(this.status.unreachableFor()).isNull();
	}

	@Test
	void preparedAtTheFirstAttemptNeverWaits() {
		this.status.prepared();
		assertThat(this.status.waiting()).isFalse();
		assertThat(this.status.reachable()).isTrue();
		assertThat(this.status.unreachableFor()).isNull();
	}

	@Test
	void anOutageIsLoggedOnceAsTheDatabaseUnreachableAndItsEndOnce() {
		for (int round = 0; round < 3; round++) {
			failedRound(new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection",
					new SQLException("Connection refused", "08001")));
		}
		succeededRound();
		succeededRound();
		assertThat(lines(Level.WARN)).singleElement()
			.asString()
			.startsWith("Node 'a': database unreachable, leadership ends at the latest when the leases would: "
					+ "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection")
			.endsWith("; root cause: java.sql.SQLException: Connection refused");
		assertThat(lines(Level.DEBUG)).hasSize(2).allMatch((line) -> line.contains("still"));
		assertThat(lines(Level.INFO)).containsExactly("Node 'a': database reachable again");
	}

	@Test
	void aFailureThatIsNotAnOutageIsLoggedAsWhatItIsWithTheServersMessage() {
		failedRound(new CannotAcquireLockException("PreparedStatementCallback; SQL [UPDATE leader_election_lease ...]",
				new SQLTransactionRollbackException("Deadlock found when trying to get lock", "40001", 1213)));
		assertThat(lines(Level.WARN)).singleElement()
			.asString()
			.startsWith("Node 'a': heartbeat failing (deadlock or lock wait): "
					+ "org.springframework.dao.CannotAcquireLockException: PreparedStatementCallback")
			.endsWith("; root cause: java.sql.SQLTransactionRollbackException: Deadlock found when trying to get lock")
			.doesNotContain("unreachable");
	}

	@Test
	void aChangeOfKindIsLoggedOnceAndRepeatsOfAKindAtDebug() {
		DuplicateKeyException duplicate = new DuplicateKeyException("PreparedStatementCallback",
				new SQLException("Duplicate entry 'x' for key 'PRIMARY'", "23000", 1062));
		failedRound(duplicate);
		failedRound(duplicate);
		failedRound(new DataAccessResourceFailureException("Communications link failure"));
		failedRound(new DataAccessResourceFailureException("Communications link failure"));
		failedRound(badSqlGrammar());
		succeededRound();
		assertThat(lines(Level.WARN)).hasSize(3)
			.satisfiesExactly(
					(line) -> assertThat(line).startsWith("Node 'a': heartbeat failing (constraint violated): "),
					(line) -> assertThat(line).startsWith("Node 'a': database unreachable, leadership ends"),
					(line) -> assertThat(line)
						.startsWith("Node 'a': heartbeat failing (missing table or column, or bad SQL): ")
						.endsWith("; root cause: java.sql.SQLSyntaxErrorException: "
								+ "Table 'app.leader_election_lease_nodes' doesn't exist"));
		assertThat(lines(Level.DEBUG)).hasSize(2);
		// The failing stretch reached no database for a while.
		assertThat(lines(Level.INFO)).containsExactly("Node 'a': database reachable again");
	}

	@Test
	void aRoundThatIsAnsweredButFailsAChangeIsOneStretchOfFailureNotAnOutageAndItsEndEveryRound() {
		for (int round = 0; round < 3; round++) {
			this.status.roundStarted(System.nanoTime());
			// The refresh and the read answered; a take-over of the round lost a
			// deadlock.
			this.status.answered();
			this.status.failed(new CannotAcquireLockException("deadlock",
					new SQLTransactionRollbackException("deadlock detected", "40P01")));
			this.status.roundEnded();
			this.clock.advance(Duration.ofSeconds(2));
		}
		succeededRound();
		assertThat(lines(Level.WARN)).singleElement()
			.asString()
			.startsWith("Node 'a': heartbeat failing (deadlock or lock wait): ");
		assertThat(lines(Level.INFO)).containsExactly("Node 'a': heartbeat succeeding again");
	}

	@Test
	void theKindAndCauseOfTheFailureAreKnownUntilARoundSucceedsAndTurnPersistentAfterLeaseMinusGuard() {
		assertThat(this.status.failure()).isNull();
		this.status.roundStarted(System.nanoTime());
		this.status.failed(new DataAccessResourceFailureException("Communications link failure"));
		this.status.roundEnded();
		this.clock.advance(Duration.ofSeconds(2));
		BadSqlGrammarException permission = new BadSqlGrammarException("PreparedStatementCallback",
				"UPDATE leader_election_lease_nodes ...",
				new SQLException("ERROR: permission denied for table leader_election_lease_nodes", "42501"));
		this.status.roundStarted(System.nanoTime());
		this.status.failed(permission);
		this.status.roundEnded();
		HeartbeatFailure failure = this.status.failure();
		assertThat(failure).isNotNull();
		assertThat(failure.kind()).isEqualTo(DatabaseFailureKind.PERMISSION_DENIED);
		assertThat(failure.cause()).isEqualTo(permission + "; root cause: " + permission.getCause());
		assertThat(failure.failingFor()).as("since the first failed round").isEqualTo(Duration.ofSeconds(2));
		assertThat(failure.persistent()).isFalse();
		assertThat(this.status.reachable()).isTrue();
		// Lease - guard (8s) after the first failed round: DOWN, whatever the kind.
		this.clock.advance(Duration.ofSeconds(6));
		assertThat(this.status.failure().persistent()).isTrue();
		assertThat(this.status.reachable()).as("nothing answered for lease - guard").isFalse();
		succeededRound();
		assertThat(this.status.failure()).isNull();
		assertThat(this.status.reachable()).isTrue();
	}

	@Test
	void aStretchOfRoundsWhoseChangesFailIsPersistentThoughTheDatabaseAnswers() {
		for (int round = 0; round < 5; round++) {
			this.status.roundStarted(System.nanoTime());
			this.status.answered();
			this.status.failed(new DuplicateKeyException("duplicate"));
			this.status.roundEnded();
			this.clock.advance(Duration.ofSeconds(2));
		}
		assertThat(this.status.reachable()).isTrue();
		assertThat(this.status.failure().failingFor()).isEqualTo(Duration.ofSeconds(10));
		assertThat(this.status.failure().persistent()).isTrue();
	}

	@Test
	void failedRoundsAreCountedOnceByTheKindOfTheirFirstFailure() {
		this.status.roundStarted(System.nanoTime());
		this.status.answered();
		this.status.failed(new CannotAcquireLockException("lock wait"));
		this.status.failed(new DuplicateKeyException("duplicate"));
		this.status.roundEnded();
		failedRound(new CannotAcquireLockException("lock wait"));
		succeededRound();
		failedRound(new DataAccessResourceFailureException("refused"));
		this.status.preparationFailed(new DataAccessResourceFailureException("refused"));
		assertThat(this.status.failedRounds(DatabaseFailureKind.CONFLICT)).isEqualTo(2);
		assertThat(this.status.failedRounds(DatabaseFailureKind.CONSTRAINT_VIOLATED)).isZero();
		assertThat(this.status.failedRounds(DatabaseFailureKind.UNREACHABLE)).isOne();
	}

	@Test
	void aWaitForTheDatabaseSaysWhyAndLogsAChangeOfKind() {
		this.status.preparationFailed(new DataAccessResourceFailureException("Connection refused"));
		this.status.preparationFailed(new DataAccessResourceFailureException("Connection refused"));
		this.status.preparationFailed(badSqlGrammar());
		assertThat(this.status.failure().kind()).isEqualTo(DatabaseFailureKind.SCHEMA);
		assertThat(lines(Level.WARN)).satisfiesExactly(
				(line) -> assertThat(line).startsWith("Node 'a': waiting for the database before joining any election "
						+ "(database unreachable), trying again every renew interval: "),
				(line) -> assertThat(line)
					.startsWith("Node 'a': waiting for the database before joining any election "
							+ "(missing table or column, or bad SQL)")
					.contains("Table 'app.leader_election_lease_nodes' doesn't exist"));
		this.status.prepared();
		assertThat(this.status.failure()).isNull();
		assertThat(lines(Level.INFO)).containsExactly("Node 'a': database ready, joining elections");
	}

	private void failedRound(RuntimeException failure) {
		this.status.roundStarted(System.nanoTime());
		this.status.failed(failure);
		this.status.roundEnded();
		this.clock.advance(Duration.ofSeconds(2));
	}

	private void succeededRound() {
		this.status.roundStarted(System.nanoTime());
		this.status.answered();
		this.status.roundEnded();
		this.clock.advance(Duration.ofSeconds(2));
	}

	private static BadSqlGrammarException badSqlGrammar() {
		return new BadSqlGrammarException("PreparedStatementCallback", "UPDATE leader_election_lease_nodes ...",
				new SQLSyntaxErrorException("Table 'app.leader_election_lease_nodes' doesn't exist", "42S02", 1146));
	}

	private List<String> lines(Level level) {
		return this.logged.list.stream()
			.filter((event) -> event.getLevel() == level)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

}
