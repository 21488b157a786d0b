package io.github.dbleader.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.BDDMockito.willReturn;
import static org.mockito.Mockito.mock;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DialectDetector}.
 */
class DialectDetectorTests {

	private static final Duration RENEW = Duration.ofSeconds(2);

	/** The detector's clock, in nanoseconds. */
	private final AtomicLong now = new AtomicLong();

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			MySQL      | MYSQL
			MariaDB    | MYSQL
			PostgreSQL | POSTGRESQL
			H2         | H2
			""")
	void detectsTheDialectFromTheProductNameTheDriverReports(String productName, SqlDialect dialect)
			throws SQLException {
		// MySQL Connector/J reports "MySQL" on MariaDB servers too; MariaDB Connector/J
		// reports "MariaDB".
		DataSource dataSource = dataSourceReporting(productName);
		assertThat(detector(dataSource, new LeaderElectionProperties.Jdbc()).getDialect()).isEqualTo(dialect);
	}

	@Test
	void configuredPlatformWinsWithoutTakingAConnection() throws SQLException {
		DataSource dataSource = dataSourceReporting("PostgreSQL");
		LeaderElectionProperties.Jdbc properties = new LeaderElectionProperties.Jdbc();
		properties.setPlatform("mariadb");
		assertThat(detector(dataSource, properties).getDialect()).isEqualTo(SqlDialect.MYSQL);
		then(dataSource).shouldHaveNoInteractions();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			jdbc:mysql://db:3306/app            | MYSQL
			jdbc:mariadb://db:3306/app          | MYSQL
			jdbc:postgresql://db:5432/app       | POSTGRESQL
			jdbc:h2:mem:app                     | H2
			""")
	void detectsTheDialectFromTheUrlOfThePoolWithoutTakingAConnection(String url, SqlDialect dialect) {
		// Nothing listens at these URLs: a connection would fail.
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(url);
		DataSource proxied = new TransactionAwareDataSourceProxy(pool);
		assertThat(detector(proxied, new LeaderElectionProperties.Jdbc()).getDialect()).isEqualTo(dialect);
		assertThat(pool.isRunning()).as("pool started").isFalse();
	}

	@Test
	void detectsTheDialectFromTheElectionsOwnUrlWithoutTakingAConnection() {
		DataSource dataSource = mock(DataSource.class);
		LeaderElectionProperties.Jdbc properties = new LeaderElectionProperties.Jdbc();
		properties.setUrl("jdbc:postgresql://db:5432/app");
		assertThat(detector(dataSource, properties).getDialect()).isEqualTo(SqlDialect.POSTGRESQL);
		then(dataSource).shouldHaveNoInteractions();
	}

	@Test
	void unsupportedDatabaseOfTheUrlFailsAtOnce() {
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource();
		dataSource.setUrl("jdbc:oracle:thin:@db:1521/app");
		assertThatExceptionOfType(InvalidLeaderElectionPropertyException.class)
			.isThrownBy(() -> detector(dataSource, new LeaderElectionProperties.Jdbc()))
			.withMessageContaining("'oracle'");
	}

	@Test
	void unsupportedDatabaseThatAnswersFailsAtOnce() throws SQLException {
		DialectDetector detector = detector(dataSourceReporting("Oracle"), new LeaderElectionProperties.Jdbc());
		assertThatExceptionOfType(InvalidLeaderElectionPropertyException.class)
			.isThrownBy(detector::getDialectIfAnswering)
			.withMessageContaining("'Oracle'");
	}

	@Test
	void databaseThatDidNotAnswerIsLeftAloneForAWhile() throws SQLException {
		// A wrapper whose URL names no platform (p6spy, the AWS wrapper, JNDI), over a
		// database that refuses connections.
		CountingDataSource dataSource = new CountingDataSource();
		DialectDetector detector = detector(dataSource, new LeaderElectionProperties.Jdbc());
		// The lease repository's bean, the lock repository's bean, the election's start.
		assertThat(detector.getDialectIfAnswering()).isNull();
		assertThat(detector.getDialectIfAnswering()).isNull();
		assertThatIllegalStateException().isThrownBy(detector::getDialect)
			.withMessageContaining("not asked again for 2000 ms")
			.withRootCauseInstanceOf(SQLTransientConnectionException.class);
		assertThat(dataSource.requests()).as("connections asked for").isEqualTo(1);
		this.now.addAndGet(RENEW.toNanos() - 1);
		assertThatIllegalStateException().isThrownBy(detector::getDialect);
		assertThat(dataSource.requests()).isEqualTo(1);
		// A renew interval after the attempt began, the next heartbeat round asks again.
		this.now.incrementAndGet();
		assertThatIllegalStateException().isThrownBy(detector::getDialect);
		assertThat(dataSource.requests()).isEqualTo(2);
		this.now.addAndGet(RENEW.toNanos());
		dataSource.answer("PostgreSQL");
		assertThat(detector.getDialect()).isEqualTo(SqlDialect.POSTGRESQL);
		assertThat(detector.getDialectIfAnswering()).isEqualTo(SqlDialect.POSTGRESQL);
		assertThat(dataSource.requests()).isEqualTo(3);
	}

	@Test
	void attemptThatTookLongerThanARenewIntervalIsRememberedForHalfOneAfterItEnded() throws SQLException {
		CountingDataSource dataSource = new CountingDataSource();
		// The pool's connection timeout passes while the database is asked.
		dataSource.whileAsked(() -> this.now.addAndGet(Duration.ofSeconds(30).toNanos()));
		DialectDetector detector = detector(dataSource, new LeaderElectionProperties.Jdbc());
		assertThat(detector.getDialectIfAnswering()).isNull();
		this.now.addAndGet(RENEW.dividedBy(2).toNanos() - 1);
		assertThat(detector.getDialectIfAnswering()).isNull();
		assertThat(dataSource.requests()).isEqualTo(1);
		this.now.incrementAndGet();
		assertThat(detector.getDialectIfAnswering()).isNull();
		assertThat(dataSource.requests()).isEqualTo(2);
	}

	@Test
	void callersWhileTheDatabaseIsAskedShareTheAttempt() throws Exception {
		CountingDataSource dataSource = new CountingDataSource();
		CountDownLatch asked = new CountDownLatch(1);
		CountDownLatch timedOut = new CountDownLatch(1);
		dataSource.whileAsked(() -> {
			asked.countDown();
			awaitQuietly(timedOut);
		});
		DialectDetector detector = detector(dataSource, new LeaderElectionProperties.Jdbc());
		FutureTask<SqlDialect> first = new FutureTask<>(detector::getDialectIfAnswering);
		FutureTask<SqlDialect> second = new FutureTask<>(detector::getDialectIfAnswering);
		Thread firstCaller = new Thread(first, "first-caller");
		Thread secondCaller = new Thread(second, "second-caller");
		try {
			firstCaller.start();
			assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
			secondCaller.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> secondCaller.getState() == Thread.State.BLOCKED);
			timedOut.countDown();
			assertThat(first.get(10, TimeUnit.SECONDS)).isNull();
			assertThat(second.get(10, TimeUnit.SECONDS)).isNull();
			assertThat(dataSource.requests()).isEqualTo(1);
		}
		finally {
			timedOut.countDown();
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private DialectDetector detector(DataSource dataSource, LeaderElectionProperties.Jdbc properties) {
		return new DialectDetector(dataSource, properties, RENEW, this.now::get);
	}

	private static DataSource dataSourceReporting(String productName) throws SQLException {
		DataSource dataSource = mock(DataSource.class);
		Connection connection = mock(Connection.class);
		DatabaseMetaData metaData = mock(DatabaseMetaData.class);
		given(dataSource.getConnection()).willReturn(connection);
		given(connection.getMetaData()).willReturn(metaData);
		given(metaData.getDatabaseProductName()).willReturn(productName);
		return dataSource;
	}

	/**
	 * A data source whose URL names no platform, over a database that refuses connections
	 * (as a pool reports it: {@code SQLTransientConnectionException}) until it answers.
	 */
	private static final class CountingDataSource extends AbstractDataSource {

		private final AtomicInteger requests = new AtomicInteger();

		private volatile Runnable whileAsked = () -> {
		};

		private volatile @Nullable String product;

		void whileAsked(Runnable action) {
			this.whileAsked = action;
		}

		void answer(String product) {
			this.product = product;
		}

		int requests() {
			return this.requests.get();
		}

		@Override
		public Connection getConnection() throws SQLException {
			this.requests.incrementAndGet();
			this.whileAsked.run();
			String product = this.product;
			if (product == null) {
				throw new SQLTransientConnectionException("connection refused (simulated)");
			}
			return dataSourceReporting(product).getConnection();
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

	}

}
