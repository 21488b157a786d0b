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
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTables("lease", "c".repeat(65)));
		// PostgreSQL cuts identifiers to 63 characters: a longer name would name another
		// table.
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTables("lease", "c".repeat(64)))
			.withMessageContaining("1 to 63");
		assertThat(new LeaseTables("lease", "c".repeat(63)).candidateTable()).hasSize(63);
		// The lease table leaves room for its fence table's suffix within PostgreSQL's
		// 63.
		assertThat(new LeaseTables("l".repeat(57), "candidates").fenceTable()).hasSize(63);
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTables("l".repeat(58), "candidates"))
			.withMessageContaining("at most 57 characters");
	}

	@Test
	void fenceTableIsNamedAfterTheLeaseTable() {
		assertThat(LeaseTables.defaults().fenceTable()).isEqualTo("leader_election_lease_fence");
		assertThat(new LeaseTables("jobs_lease", "jobs_candidates").fenceTable()).isEqualTo("jobs_lease_fence");
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaseTables("jobs", "jobs_fence"))
			.withMessageContaining("must differ from the fence table");
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
		for (SqlDialect dialect : SqlDialect.values()) {
			// A candidates table whose name begins with the default lease table's is left
			// whole.
			String script = LeaseSchema.script(dialect,
					new LeaseTables("my_lease", "leader_election_lease_candidates"));
			assertThat(script).contains("CREATE TABLE IF NOT EXISTS my_lease (")
				.contains("CREATE TABLE IF NOT EXISTS leader_election_lease_candidates (")
				.contains("CREATE TABLE IF NOT EXISTS my_lease_fence (")
				.doesNotContain("leader_election_candidate ")
				.doesNotContain("leader_election_lease ")
				.doesNotContain("leader_election_lease_fence");
		}
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
