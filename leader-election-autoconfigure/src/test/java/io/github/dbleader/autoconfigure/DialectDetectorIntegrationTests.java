package io.github.dbleader.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.jdbc.datasource.AbstractDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DialectDetector} on the product name each real driver reports, e.g.
 * {@code MariaDB} from MariaDB Connector/J and {@code MySQL} from MySQL Connector/J on
 * the same MariaDB server.
 */
class DialectDetectorIntegrationTests {

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void detectsTheDialectOfEachDriver(TestDatabase database) throws SQLException {
		try (HikariDataSource pool = database.dataSource(1)) {
			// A data source that does not tell its URL: the detector asks the database.
			DataSource dataSource = new AbstractDataSource() {

				@Override
				public Connection getConnection() throws SQLException {
					return pool.getConnection();
				}

				@Override
				public Connection getConnection(String username, String password) throws SQLException {
					return pool.getConnection(username, password);
				}

			};
			assertThat(DialectDetector.urlOf(dataSource)).isNull();
			assertThat(new DialectDetector(dataSource, new LeaderElectionProperties.Jdbc(), Duration.ofSeconds(2),
					MonotonicClock.SYSTEM)
				.getDialect()).isEqualTo(SqlDialect.forName(database.platform()));
		}
	}

}
