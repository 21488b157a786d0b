package io.github.dbleader.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.BDDMockito.willReturn;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link DialectDetector}.
 */
class DialectDetectorTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			MySQL      | MYSQL
			MariaDB    | MYSQL
			PostgreSQL | POSTGRESQL
			H2         | H2
			""")
	void detectsTheDialectFromTheProductNameTheDriverReports(String productName, SqlDialect dialect)
			throws SQLException {
		// MySQL Connector/J reports "MySQL" on MariaDB servers too; MariaDB Connector/J reports "MariaDB".
		DataSource dataSource = dataSourceReporting(productName);
		assertThat(new DialectDetector(dataSource, new LeaderElectionProperties.Jdbc()).getDialect())
			.isEqualTo(dialect);
	}

	@Test
	void configuredPlatformWinsWithoutTakingAConnection() throws SQLException {
		DataSource dataSource = dataSourceReporting("PostgreSQL");
		LeaderElectionProperties.Jdbc properties = new LeaderElectionProperties.Jdbc();
		properties.setPlatform("mariadb");
		assertThat(new DialectDetector(dataSource, properties).getDialect()).isEqualTo(SqlDialect.MYSQL);
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
		assertThat(new DialectDetector(proxied, new LeaderElectionProperties.Jdbc()).getDialect()).isEqualTo(dialect);
		assertThat(pool.isRunning()).as("pool started").isFalse();
	}

	@Test
	void detectsTheDialectFromTheElectionsOwnUrlWithoutTakingAConnection() {
		DataSource dataSource = mock(DataSource.class);
		LeaderElectionProperties.Jdbc properties = new LeaderElectionProperties.Jdbc();
		properties.setUrl("jdbc:postgresql://db:5432/app");
		assertThat(new DialectDetector(dataSource, properties).getDialect()).isEqualTo(SqlDialect.POSTGRESQL);
		then(dataSource).shouldHaveNoInteractions();
	}

	@Test
	void unsupportedDatabaseOfTheUrlFailsAtOnce() {
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource();
		dataSource.setUrl("jdbc:oracle:thin:@db:1521/app");
		assertThatExceptionOfType(InvalidLeaderElectionPropertyException.class)
			.isThrownBy(() -> new DialectDetector(dataSource, new LeaderElectionProperties.Jdbc()))
			.withMessageContaining("'oracle'");
	}

	@Test
	void databaseThatDoesNotAnswerLeavesTheDialectToItsFirstAnswer() throws SQLException {
		DataSource dataSource = mock(DataSource.class);
		given(dataSource.getConnection()).willThrow(new SQLTransientConnectionException("connection refused"));
		DialectDetector detector = new DialectDetector(dataSource, new LeaderElectionProperties.Jdbc());
		assertThat(detector.getDialectIfAnswering()).isNull();
		Connection connection = mock(Connection.class);
		DatabaseMetaData metaData = mock(DatabaseMetaData.class);
		willReturn(connection).given(dataSource).getConnection();
		given(connection.getMetaData()).willReturn(metaData);
		given(metaData.getDatabaseProductName()).willReturn("MariaDB");
		assertThat(detector.getDialectIfAnswering()).isEqualTo(SqlDialect.MYSQL);
	}

	@Test
	void unsupportedDatabaseThatAnswersFailsAtOnce() throws SQLException {
		DialectDetector detector = new DialectDetector(dataSourceReporting("Oracle"),
				new LeaderElectionProperties.Jdbc());
		assertThatExceptionOfType(InvalidLeaderElectionPropertyException.class)
			.isThrownBy(detector::getDialectIfAnswering)
			.withMessageContaining("'Oracle'");
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

}
