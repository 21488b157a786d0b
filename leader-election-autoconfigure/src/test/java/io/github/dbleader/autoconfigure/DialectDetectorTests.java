package io.github.dbleader.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.github.dbleader.election.jdbc.SqlDialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
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
