package io.github.dbleader.election.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The DDL of the lease, candidates, fence, nodes and pins tables, shipped in the jar as
 * {@code io/github/dbleader/election/jdbc/schema-<platform>.sql} with the default table
 * names, which are replaced by the configured ones.
 */
public final class LeaseSchema {

	/** Location of the scripts, with {@code @@platform@@} for the platform. */
	public static final String LOCATION = "classpath:io/github/dbleader/election/jdbc/schema-@@platform@@.sql";

	private static final Pattern TABLE_NAME = Pattern.compile("\\b(" + LeaseTables.DEFAULT_LEASE_TABLE
			+ LeaseTables.FENCE_TABLE_SUFFIX + "|" + LeaseTables.DEFAULT_LEASE_TABLE + LeaseTables.NODES_TABLE_SUFFIX
			+ "|" + LeaseTables.DEFAULT_LEASE_TABLE + LeaseTables.PINS_TABLE_SUFFIX
			+ "|" + LeaseTables.DEFAULT_LEASE_TABLE + LeaseTables.NODE_INDEX_SUFFIX
			+ "|" + LeaseTables.DEFAULT_LEASE_TABLE + "|" + LeaseTables.DEFAULT_CANDIDATE_TABLE + ")\\b");

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
			LeaseTables defaults = LeaseTables.defaults();
			Map<String, String> names = Map.of(defaults.leaseTable(), tables.leaseTable(), defaults.candidateTable(),
					tables.candidateTable(), defaults.fenceTable(), tables.fenceTable(), defaults.nodeIndex(),
					tables.nodeIndex(), defaults.nodesTable(), tables.nodesTable(), defaults.pinsTable(),
					tables.pinsTable());
			// Whole names in one pass: the default lease table's name begins the fence table's
			// and the index's.
			return TABLE_NAME.matcher(script).replaceAll((match) -> Matcher.quoteReplacement(names.get(match.group())));
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
