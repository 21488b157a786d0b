package io.github.dbleader.election.jdbc;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link LeaseSchema}.
 */
class LeaseSchemaTests {

	@Test
	void mysqlScriptRunsWithoutTheNamedLockWhereTheServerHasNone() {
		// H2 in MySQL mode accepts the MySQL script but has no GET_LOCK, as some MariaDB
		// Galera versions refuse it.
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> jdbc.queryForObject("SELECT GET_LOCK('schema:x', 1)", Integer.class));
		LeaseTables tables = new LeaseTables("nolock_lease", "nolock_candidate");
		LeaseSchema.create(dataSource, SqlDialect.MYSQL, tables);
		LeaseSchema.create(dataSource, SqlDialect.MYSQL, tables);
		for (String table : tables.allTables()) {
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class)).isZero();
		}
	}

	@Test
	void lockKeysAndNamesDifferByTables() {
		LeaseTables defaults = LeaseTables.defaults();
		LeaseTables other = new LeaseTables("other_lease", "other_candidate");
		assertThat(LeaseSchema.lockKey(defaults)).isNotEqualTo(LeaseSchema.lockKey(other));
		String longest = "l".repeat(LeaseTables.MAX_LEASE_TABLE_LENGTH);
		assertThat(LeaseSchema.lockName(new LeaseTables(longest, "candidate"))).hasSizeLessThanOrEqualTo(64);
	}

}
