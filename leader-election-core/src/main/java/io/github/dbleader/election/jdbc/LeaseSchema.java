package io.github.dbleader.election.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
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
			+ "|" + LeaseTables.DEFAULT_LEASE_TABLE + LeaseTables.PINS_TABLE_SUFFIX + "|"
			+ LeaseTables.DEFAULT_LEASE_TABLE + LeaseTables.NODE_INDEX_SUFFIX + "|" + LeaseTables.DEFAULT_LEASE_TABLE
			+ LeaseTables.DELTA_INDEX_SUFFIX + "|" + LeaseTables.DEFAULT_LEASE_TABLE + "|"
			+ LeaseTables.DEFAULT_CANDIDATE_TABLE + ")\\b");

	/**
	 * The columns that hold election names, node ids and partition group names, which
	 * must compare exactly, as Java compares them.
	 */
	private static final List<String> NAME_COLUMNS = List.of("election_name", "node_id", "leader_id", "handover_to",
			"yielded_by", "group_name");

	/** Longest wait for another session's schema lock on PostgreSQL. */
	private static final Duration LOCK_WAIT = Duration.ofSeconds(60);

	/** How often the script runs without a lock before a failure is final. */
	private static final int ATTEMPTS = 5;

	/** High half of PostgreSQL's advisory lock keys: "LEAD" in ASCII. */
	private static final long LOCK_KEY_PREFIX = 0x4C45414400000000L;

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
					tables.nodeIndex(), defaults.deltaIndex(), tables.deltaIndex(), defaults.nodesTable(),
					tables.nodesTable(), defaults.pinsTable(), tables.pinsTable());
			// Whole names in one pass: the default lease table's name begins the fence
			// table's and the index's.
			return TABLE_NAME.matcher(script).replaceAll((match) -> Matcher.quoteReplacement(names.get(match.group())));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Create the tables if they do not exist. Safe when several nodes do it at once on a
	 * new database, or on tables of an earlier release that lack columns. On PostgreSQL
	 * {@code CREATE TABLE IF NOT EXISTS} alone is not (two sessions both find the table
	 * missing and the second fails on the catalogue's unique index), so the script runs
	 * in one transaction under a transaction-level advisory lock that only this script
	 * takes, released with the transaction. Elsewhere the script runs without a lock, and
	 * a run that fails is run again, up to five times: each failure means that another
	 * session created a table or added a column meanwhile, which the next run finds and
	 * leaves (MySQL's {@code CREATE TABLE IF NOT EXISTS} waits for another session's
	 * creation of the same table and then finds it). No session-bound lock (MySQL's
	 * {@code GET_LOCK}), as the election takes none (I8): one left on a pooled connection
	 * whose release failed would hold up every node's start for its wait, a connection
	 * pooler that multiplexes sessions (ProxySQL, RDS Proxy) would pin or split it, and
	 * on Galera it would not serialise across cluster nodes anyway.
	 * @param dataSource where to create them
	 * @param dialect the dialect
	 * @param tables the table names
	 * @throws org.springframework.dao.DataAccessException if the database cannot be
	 * reached or the script fails
	 */
	public static void create(DataSource dataSource, SqlDialect dialect, LeaseTables tables) {
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator(
				new ByteArrayResource(script(dialect, tables).getBytes(StandardCharsets.UTF_8)));
		try (Connection connection = dataSource.getConnection()) {
			switch (dialect) {
				case POSTGRESQL -> createInTransaction(connection, populator, tables);
				case MYSQL, H2 -> createOrRetry(connection, populator, tables);
			}
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("Could not create the leader election tables", ex);
		}
	}

	private static void createInTransaction(Connection connection, ResourceDatabasePopulator populator,
			LeaseTables tables) throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(false);
		try {
			try (Statement limit = connection.createStatement()) {
				// The wait for another session's lock is bounded, as on MySQL.
				limit.execute("SET LOCAL lock_timeout = '" + LOCK_WAIT.toSeconds() + "s'");
			}
			try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
				lock.setLong(1, lockKey(tables));
				lock.execute();
			}
			populate(connection, populator, tables);
			connection.commit();
		}
		catch (SQLException | RuntimeException ex) {
			connection.rollback();
			throw ex;
		}
		finally {
			connection.setAutoCommit(autoCommit);
		}
	}

	/**
	 * Add the columns that tables created by an earlier snapshot lack
	 * ({@code CREATE TABLE IF
	 * NOT EXISTS} leaves an existing table as it is), then run the script: first, as the
	 * script's indexes may name them.
	 */
	private static void populate(Connection connection, ResourceDatabasePopulator populator, LeaseTables tables) {
		try {
			DatabaseMetaData metaData = connection.getMetaData();
			// Each table's columns read once: the catalogue is slow to ask on MySQL.
			Map<String, Set<String>> columns = new HashMap<>();
			for (AddedColumn added : AddedColumn.of(tables)) {
				Set<String> existing = columns.get(added.table());
				if (existing == null) {
					existing = columns(metaData, connection, added.table());
					columns.put(added.table(), existing);
				}
				if (!existing.isEmpty() && !existing.contains(added.column())
						&& addColumn(metaData, connection, added)) {
					// Its index comes with it, from the session that added it.
					if (added.index() != null) {
						try (Statement index = connection.createStatement()) {
							index.execute("CREATE INDEX " + added.index() + " ON " + added.table() + " ("
									+ added.column() + ")");
						}
					}
				}
			}
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("Could not add the new columns to the leader election tables",
					ex);
		}
		populator.populate(connection);
	}

	/**
	 * Add a column that a table lacks.
	 * @return whether this session added it; {@code false} if another session added it
	 * since this one looked (the script runs without a lock except on PostgreSQL), which
	 * a run with several columns to add would otherwise count as a failure per column
	 */
	private static boolean addColumn(DatabaseMetaData metaData, Connection connection, AddedColumn added)
			throws SQLException {
		try (Statement alter = connection.createStatement()) {
			alter.execute("ALTER TABLE " + added.table() + " ADD COLUMN " + added.column() + " " + added.definition());
			return true;
		}
		catch (SQLException ex) {
			if (connection.getAutoCommit() && columns(metaData, connection, added.table()).contains(added.column())) {
				return false;
			}
			throw ex;
		}
	}

	/** The columns of a table, in lower case; none if it does not exist. */
	private static Set<String> columns(DatabaseMetaData metaData, Connection connection, String table)
			throws SQLException {
		// As the database stores unquoted names: as written (MySQL), lower case
		// (PostgreSQL) or upper case (H2). The name is a pattern ('_' matches any
		// character): compare exactly.
		Set<String> found = new HashSet<>();
		for (String name : new LinkedHashSet<>(
				List.of(table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT)))) {
			try (ResultSet rs = metaData.getColumns(connection.getCatalog(), connection.getSchema(), name, null)) {
				while (rs.next()) {
					if (table.equalsIgnoreCase(rs.getString("TABLE_NAME"))) {
						found.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
					}
				}
			}
			if (!found.isEmpty()) {
				return found;
			}
		}
		return found;
	}

	/**
	 * A column added to a table after snapshots that created it were released.
	 *
	 * @param table the table
	 * @param column the column
	 * @param definition its type and default, the same on every platform
	 * @param index the name of an index of the column, created with it, if any
	 */
	private record AddedColumn(String table, String column, String definition, @Nullable String index) {

		AddedColumn(String table, String column, String definition) {
			this(table, column, definition, null);
		}

		static List<AddedColumn> of(LeaseTables tables) {
			String counter = "BIGINT NOT NULL DEFAULT 0";
			return List.of(new AddedColumn(tables.leaseTable(), "leader_instance", "VARCHAR(64) NULL"),
					new AddedColumn(tables.leaseTable(), "changed_at", counter, tables.deltaIndex()),
					new AddedColumn(tables.nodesTable(), "version", counter),
					new AddedColumn(tables.nodesTable(), "expires_at", counter),
					new AddedColumn(tables.nodesTable(), "takeovers", counter),
					new AddedColumn(tables.nodesTable(), "previous_instance", "VARCHAR(64) NULL"),
					new AddedColumn(tables.nodesTable(), "previous_version", counter),
					new AddedColumn(tables.nodesTable(), "node_rank", "VARCHAR(64) NOT NULL DEFAULT ''"));
		}

	}

	/**
	 * On MySQL and MariaDB, the columns of names (election names, node ids, group names)
	 * of these tables that do not compare exactly: tables created before the script gave
	 * them a binary collation ({@code CREATE TABLE IF NOT EXISTS} leaves an existing
	 * table as it is) compare with the server's default, which takes names that differ
	 * only in case or accents for the same.
	 * @param jdbc statements on the tables' database
	 * @param tables the tables
	 * @return by table, in the order of {@link LeaseTables#allTables()}, its columns of
	 * names that compare inexactly, as {@code column (collation)}; empty where every one
	 * compares exactly
	 */
	static Map<String, List<String>> inexactNameColumns(JdbcTemplate jdbc, LeaseTables tables) {
		Map<String, List<String>> inexact = new TreeMap<>(
				Comparator.comparingInt((String table) -> tables.allTables().indexOf(table)));
		List<Object> args = new ArrayList<>();
		tables.allTables().forEach((table) -> args.add(table.toLowerCase(Locale.ROOT)));
		args.addAll(NAME_COLUMNS);
		String list = "?" + ", ?".repeat(tables.allTables().size() - 1);
		jdbc.query("SELECT table_name, column_name, collation_name FROM information_schema.columns"
				+ " WHERE table_schema = DATABASE() AND LOWER(table_name) IN (" + list
				+ ") AND LOWER(column_name) IN (?" + ", ?".repeat(NAME_COLUMNS.size() - 1) + ") ORDER BY column_name",
				(rs) -> {
					String found = rs.getString(1);
					String collation = rs.getString(3);
					String table = tables.allTables()
						.stream()
						.filter((name) -> name.equalsIgnoreCase(found))
						.findFirst()
						.orElse(null);
					// No collation: a binary type, which compares exactly.
					if (table != null && collation != null && !collation.toLowerCase(Locale.ROOT).endsWith("_bin")) {
						inexact.computeIfAbsent(table, (key) -> new ArrayList<>())
							.add(rs.getString(2).toLowerCase(Locale.ROOT) + " (" + collation + ")");
					}
				}, args.toArray());
		return inexact;
	}

	/**
	 * The statement that makes every text column of a table compare exactly on MySQL and
	 * MariaDB, as the script creates them.
	 * @param table the table
	 * @return the statement
	 */
	static String exactNames(String table) {
		return "ALTER TABLE " + table + " CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin";
	}

	private static void createOrRetry(Connection connection, ResourceDatabasePopulator populator, LeaseTables tables) {
		for (int attempt = 1;; attempt++) {
			try {
				populate(connection, populator, tables);
				return;
			}
			catch (RuntimeException ex) {
				// Another session created a table, column or index between this one's
				// check and its create; each failure means another session got further,
				// so a few suffice.
				if (attempt == ATTEMPTS) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Key of PostgreSQL's advisory lock for the script of these tables: other table
	 * names, other keys.
	 * @param tables the table names
	 * @return the key
	 */
	static long lockKey(LeaseTables tables) {
		return LOCK_KEY_PREFIX | (("schema:" + tables.leaseTable()).hashCode() & 0xFFFFFFFFL);
	}

}
