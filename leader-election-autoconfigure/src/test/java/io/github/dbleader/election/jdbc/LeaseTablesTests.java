package io.github.dbleader.election.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Table names are written into SQL, so only plain identifiers pass.
 */
class LeaseTablesTests {

	@ParameterizedTest
	@ValueSource(strings = { "lease; DROP TABLE x", "lease-table", "1lease", "", "lease table", "`lease`",
			"schema.lease", "lease\"", "läse" })
	void rejectsAnythingButAPlainIdentifier(String name) {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTables(name, "candidates"))
			.withMessageContaining("Invalid lease table name")
			.withMessageContaining("letters, digits or underscores");
	}

	@Test
	void rejectsTooLongNames() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTables("l".repeat(65), "candidates"));
	}

	@Test
	void rejectsTheSameNameTwice() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTables("Lease", "lease"))
			.withMessageContaining("must differ");
	}

	@Test
	void acceptsPlainIdentifiers() {
		assertThat(new LeaseTables("_Lease_2", "app_candidates").leaseTable()).isEqualTo("_Lease_2");
	}

	@Test
	void schemaUsesTheConfiguredNames() {
		String script = LeaseSchema.script(SqlDialect.MYSQL, new LeaseTables("my_lease", "my_candidates"));
		assertThat(script).contains("CREATE TABLE IF NOT EXISTS my_lease (")
			.contains("CREATE TABLE IF NOT EXISTS my_candidates (")
			.doesNotContain("leader_election_");
	}

	@Test
	void platformsFromProductNames() {
		assertThat(SqlDialect.forName("MariaDB")).isEqualTo(SqlDialect.MYSQL);
		assertThat(SqlDialect.forName("MySQL")).isEqualTo(SqlDialect.MYSQL);
		assertThat(SqlDialect.forName("PostgreSQL")).isEqualTo(SqlDialect.POSTGRESQL);
		assertThat(SqlDialect.forName("H2")).isEqualTo(SqlDialect.H2);
		assertThatIllegalArgumentException().isThrownBy(() -> SqlDialect.forName("Oracle"))
			.withMessage("Unsupported database 'Oracle'; supported platforms are mysql (also for MariaDB), "
					+ "postgresql and h2");
	}

}
