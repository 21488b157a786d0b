package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SqlDialect}.
 */
class SqlDialectTests {

	/**
	 * One MySQL-protocol statement serves MySQL 8.0, 8.4 and 9.x and MariaDB 10.6+: none
	 * may use {@code VALUES(col)} in {@code ON DUPLICATE KEY UPDATE}, which MySQL
	 * deprecates since 8.0.20 (warning 1287), nor the row alias that replaces it there
	 * ({@code INSERT ... VALUES (...) AS new}), which MariaDB does not parse.
	 * {@link SqlDialectIntegrationTests} runs the statements.
	 */
	@Test
	void mysqlUpsertsUseNeitherValuesNorARowAlias() {
		LeaseTables tables = LeaseTables.defaults();
		List<String> statements = List.of(SqlDialect.MYSQL.writeFence(tables.fenceTable(), tables.leaseTable()),
				SqlDialect.MYSQL.writeFences(tables.fenceTable(), tables.leaseTable(), "IN (?, ?)"),
				String.valueOf(SqlDialect.MYSQL.ignoreDuplicateKeys("election_name")));
		assertThat(statements).allSatisfy((statement) -> assertThat(statement.toUpperCase(Locale.ROOT))
			.doesNotContainPattern("VALUES\\s*\\(\\s*[A-Z_]+\\s*\\)")
			.doesNotContainPattern("\\)\\s+AS\\s+[A-Z_]+\\s+ON DUPLICATE KEY"));
	}

	/**
	 * The bound on a change of holder's wait for the fence row is MySQL's hint in
	 * milliseconds and MariaDB's setting in seconds, each where the other server skips it
	 * (MySQL 8 has no {@code SET STATEMENT}), on a statement MySQL bounds: a
	 * {@code SELECT}.
	 */
	@Test
	void mysqlBoundsTheWaitForTheFenceRowForMySqlAndMariaDbAlike() {
		assertThat(SqlDialect.MYSQL.boundFenceWait("f", Duration.ofMillis(750)))
			.isEqualTo("/*M! SET STATEMENT max_statement_time = 0.750 FOR */ SELECT /*+ MAX_EXECUTION_TIME(750) */"
					+ " election_name FROM f FORCE INDEX (PRIMARY) WHERE election_name = ? FOR UPDATE");
		assertThat(SqlDialect.POSTGRESQL.boundFenceWait("f", Duration.ofMillis(750)))
			.isEqualTo("SELECT set_config('statement_timeout', '750', true) FROM f WHERE election_name = ?");
		assertThat(SqlDialect.H2.boundFenceWait("f", Duration.ofMillis(750))).isNull();
	}

}
