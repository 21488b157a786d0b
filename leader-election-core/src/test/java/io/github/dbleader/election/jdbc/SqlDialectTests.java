package io.github.dbleader.election.jdbc;

import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SqlDialect}.
 */
class SqlDialectTests {

	/**
	 * One MySQL-protocol statement serves MySQL 8.0, 8.4 and 9.x and MariaDB 10.6+: none may
	 * use {@code VALUES(col)} in {@code ON DUPLICATE KEY UPDATE}, which MySQL deprecates
	 * since 8.0.20 (warning 1287), nor the row alias that replaces it there
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

}
