package io.github.dbleader.election.jdbc;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaseSchema}.
 */
class LeaseSchemaTests {

	@Test
	void mysqlScriptRunsAgainOnTheTablesItCreated() {
		// H2 in MySQL mode accepts the MySQL script: the second run finds every table.
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		LeaseTables tables = new LeaseTables("mysql_lease", "mysql_candidate");
		LeaseSchema.create(dataSource, SqlDialect.MYSQL, tables);
		LeaseSchema.create(dataSource, SqlDialect.MYSQL, tables);
		for (String table : tables.allTables()) {
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class)).isZero();
		}
	}

	@Test
	void lockKeysDifferByTables() {
		LeaseTables defaults = LeaseTables.defaults();
		LeaseTables other = new LeaseTables("other_lease", "other_candidate");
		assertThat(LeaseSchema.lockKey(defaults)).isNotEqualTo(LeaseSchema.lockKey(other));
	}

}
