package io.github.dbleader.election.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import javax.sql.DataSource;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The DDL of the lease and candidates tables, shipped in the jar as
 * {@code io/github/dbleader/election/jdbc/schema-<platform>.sql} with the default table
 * names, which are replaced by the configured ones.
 */
public final class LeaseSchema {

	/** Location of the scripts, with {@code @@platform@@} for the platform. */
	public static final String LOCATION = "classpath:io/github/dbleader/election/jdbc/schema-@@platform@@.sql";

	private LeaseSchema() {
	}

	/**
	 * Return the DDL for a dialect and table names. Statements are idempotent
	 * ({@code CREATE TABLE IF NOT EXISTS}).
	 * @param dialect the dialect
	 * @param tables the table names
	 * @return the script
	 */
	public static String script(SqlDialect dialect, LeaseTables tables) {
		String resource = "schema-" + dialect.platform() + ".sql";
		try (InputStream in = LeaseSchema.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Schema script " + resource + " is missing from the jar");
			}
			String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return script.replace(LeaseTables.DEFAULT_CANDIDATE_TABLE, tables.candidateTable())
				.replace(LeaseTables.DEFAULT_LEASE_TABLE, tables.leaseTable());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Create the tables if they do not exist.
	 * @param dataSource where to create them
	 * @param dialect the dialect
	 * @param tables the table names
	 */
	public static void create(DataSource dataSource, SqlDialect dialect, LeaseTables tables) {
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator(
				new ByteArrayResource(script(dialect, tables).getBytes(StandardCharsets.UTF_8)));
		populator.execute(dataSource);
	}

}
