package io.github.dbleader.autoconfigure;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DialectDetector} on the product name each real driver reports, e.g.
 * {@code MariaDB} from MariaDB Connector/J and {@code MySQL} from MySQL Connector/J on the
 * same MariaDB server.
 */
class DialectDetectorIntegrationTests {

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void detectsTheDialectOfEachDriver(TestDatabase database) {
		try (HikariDataSource dataSource = database.dataSource(1)) {
			assertThat(new DialectDetector(dataSource, new LeaderElectionProperties.Jdbc()).getDialect())
				.isEqualTo(SqlDialect.forName(database.platform()));
		}
	}

}
