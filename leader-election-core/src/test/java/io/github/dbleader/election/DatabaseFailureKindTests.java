package io.github.dbleader.election;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Tests for {@link DatabaseFailureKind#of}: the failures H2 and a closed port really
 * throw, through {@link JdbcTemplate}'s translation, and the SQLStates and error codes of
 * the servers this starter runs on, as their drivers report them.
 */
class DatabaseFailureKindTests {

	private final String name = "jdbc:h2:mem:" + UUID.randomUUID();

	private final String url = this.name + ";DB_CLOSE_DELAY=-1";

	private final JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url, "sa", ""));

	@BeforeEach
	void createTheDatabase() {
		this.jdbc.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
	}

	@Test
	void aMissingTableIsSchema() {
		assertThat(kindOf(() -> this.jdbc.update("UPDATE leader_election_lease_nodes SET version = 1")))
			.isEqualTo(DatabaseFailureKind.SCHEMA);
	}

	@Test
	void aMissingColumnIsSchema() {
		assertThat(kindOf(() -> this.jdbc.update("UPDATE t SET instance_id = 'x'")))
			.isEqualTo(DatabaseFailureKind.SCHEMA);
	}

	@Test
	void aDuplicateKeyIsAConstraintViolation() {
		this.jdbc.update("INSERT INTO t VALUES (1, 0)");
		assertThat(kindOf(() -> this.jdbc.update("INSERT INTO t VALUES (1, 0)")))
			.isEqualTo(DatabaseFailureKind.CONSTRAINT_VIOLATED);
	}

	@Test
	void aLockWaitTimeoutIsAConflict() throws Exception {
		this.jdbc.update("INSERT INTO t VALUES (1, 0)");
		DataSource holder = new DriverManagerDataSource(this.url, "sa", "");
		AtomicReference<DatabaseFailureKind> kind = new AtomicReference<>();
		new TransactionTemplate(new DataSourceTransactionManager(holder)).executeWithoutResult((status) -> {
			new JdbcTemplate(holder).update("UPDATE t SET v = 1 WHERE id = 1");
			SingleConnectionDataSource waiter = new SingleConnectionDataSource(this.url, "sa", "", true);
			try {
				JdbcTemplate waiting = new JdbcTemplate(waiter);
				waiting.execute("SET LOCK_TIMEOUT 100");
				kind.set(kindOf(() -> waiting.update("UPDATE t SET v = 2 WHERE id = 1")));
			}
			finally {
				waiter.destroy();
			}
		});
		assertThat(kind).hasValue(DatabaseFailureKind.CONFLICT);
	}

	@Test
	void aTableTheUserHasNoRightsOnIsPermissionDenied() {
		this.jdbc.execute("CREATE USER reader PASSWORD 'reader'");
		JdbcTemplate reader = new JdbcTemplate(new DriverManagerDataSource(this.name, "reader", "reader"));
		assertThat(kindOf(() -> reader.update("UPDATE t SET v = 2"))).isEqualTo(DatabaseFailureKind.PERMISSION_DENIED);
		// A setting only an administrator may make, in the URL.
		JdbcTemplate setting = new JdbcTemplate(new DriverManagerDataSource(this.url, "reader", "reader"));
		assertThat(kindOf(() -> setting.queryForObject("SELECT 1", Integer.class)))
			.isEqualTo(DatabaseFailureKind.PERMISSION_DENIED);
	}

	@Test
	void aWrongPasswordIsPermissionDenied() {
		JdbcTemplate wrong = new JdbcTemplate(new DriverManagerDataSource(this.url, "sa", "wrong"));
		assertThat(kindOf(() -> wrong.queryForObject("SELECT 1", Integer.class)))
			.isEqualTo(DatabaseFailureKind.PERMISSION_DENIED);
	}

	@Test
	void aStatementTimeoutIsTimedOut() {
		SingleConnectionDataSource single = new SingleConnectionDataSource(this.url, "sa", "", true);
		try {
			JdbcTemplate timed = new JdbcTemplate(single);
			timed.execute("SET QUERY_TIMEOUT 100");
			assertThat(kindOf(
					() -> timed.queryForObject("SELECT SUM(X * X) FROM SYSTEM_RANGE(1, 10000000000)", Long.class)))
				.isEqualTo(DatabaseFailureKind.TIMED_OUT);
		}
		finally {
			single.destroy();
		}
	}

	@Test
	void aClosedPortIsUnreachable() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		for (String url : new String[] { "jdbc:postgresql://127.0.0.1:" + port + "/db",
				"jdbc:mysql://127.0.0.1:" + port + "/db", "jdbc:mariadb://127.0.0.1:" + port + "/db" }) {
			JdbcTemplate closed = new JdbcTemplate(new DriverManagerDataSource(url, "u", "p"));
			assertThat(kindOf(() -> closed.queryForObject("SELECT 1", Integer.class))).as(url)
				.isEqualTo(DatabaseFailureKind.UNREACHABLE);
		}
	}

	@ParameterizedTest(name = "{0} {1} {2}: {3}")
	@CsvSource(textBlock = """
			PostgreSQL deadlock,                  40P01, 0,    CONFLICT
			PostgreSQL serialization failure,     40001, 0,    CONFLICT
			PostgreSQL lock_timeout,              55P03, 0,    CONFLICT
			PostgreSQL insufficient privilege,    42501, 0,    PERMISSION_DENIED
			PostgreSQL undefined column,          42703, 0,    SCHEMA
			PostgreSQL password failed,           28P01, 0,    PERMISSION_DENIED
			PostgreSQL statement timeout,         57014, 0,    TIMED_OUT
			PostgreSQL admin shutdown,            57P01, 0,    UNREACHABLE
			PostgreSQL connection failure,        08006, 0,    UNREACHABLE
			PostgreSQL unique violation,          23505, 0,    CONSTRAINT_VIOLATED
			MySQL deadlock or Galera certification, 40001, 1213, CONFLICT
			MySQL lock wait timeout,              HY000, 1205, CONFLICT
			MySQL table command denied,           42000, 1142, PERMISSION_DENIED
			MySQL access denied for user,         28000, 1045, PERMISSION_DENIED
			MySQL unknown table,                  42S02, 1146, SCHEMA
			MySQL communications link failure,    08S01, 0,    UNREACHABLE
			MariaDB max_statement_time,           70100, 1969, TIMED_OUT
			MySQL max_execution_time,             HY000, 3024, TIMED_OUT
			MySQL duplicate entry,                23000, 1062, CONSTRAINT_VIOLATED
			an unknown state,                     HY000, 1,    OTHER
			""")
	void sqlStatesAndErrorCodesOfTheServers(String server, String state, int code, DatabaseFailureKind kind) {
		SQLException driver = new SQLException(server, state, code);
		assertThat(DatabaseFailureKind.of(driver)).isEqualTo(kind);
		// Under whatever Spring could make of it.
		assertThat(DatabaseFailureKind.of(new UncategorizedSQLException("task", "sql", driver))).isEqualTo(kind);
	}

	@Test
	void aSocketTimeoutUnderTheDriversConnectionFailureIsTimedOut() {
		SQLException driver = new SQLException("Communications link failure", "08S01",
				new SocketTimeoutException("Read timed out"));
		assertThat(DatabaseFailureKind.of(new UncategorizedSQLException("task", "sql", driver)))
			.isEqualTo(DatabaseFailureKind.TIMED_OUT);
		assertThat(DatabaseFailureKind.of(new SQLTimeoutException("Statement cancelled due to timeout")))
			.isEqualTo(DatabaseFailureKind.TIMED_OUT);
	}

	@Test
	void aBatchsFailureIsItsNextException() {
		BatchUpdateException batch = new BatchUpdateException("Batch entry 0 was aborted", null, 0, new int[0]);
		batch.setNextException(new SQLException("ERROR: deadlock detected", "40P01"));
		assertThat(DatabaseFailureKind.of(batch)).isEqualTo(DatabaseFailureKind.CONFLICT);
	}

	@Test
	void aFailureThatNoCauseExplainsIsOther() {
		assertThat(DatabaseFailureKind.of(new IllegalStateException("no"))).isEqualTo(DatabaseFailureKind.OTHER);
		assertThat(DatabaseFailureKind.of(new NullPointerException())).isEqualTo(DatabaseFailureKind.OTHER);
	}

	@Test
	void onlyTheKindsWithoutAnAnswerAreUnreachable() {
		assertThat(DatabaseFailureKind.values()).filteredOn(DatabaseFailureKind::databaseUnreachable)
			.containsExactly(DatabaseFailureKind.UNREACHABLE, DatabaseFailureKind.TIMED_OUT);
	}

	private static DatabaseFailureKind kindOf(Runnable statement) {
		DataAccessException failure = catchThrowableOfType(DataAccessException.class, statement::run);
		assertThat(failure).as("the statement failed").isNotNull();
		return DatabaseFailureKind.of(failure);
	}

}
