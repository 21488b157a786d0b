package io.github.dbleader.election.jdbc;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The rows of elections that the database refuses (a name that a table cannot hold, or
 * takes for another's), each reported once at WARN and sent on its own from then on, so
 * that it fails no statement of the other elections; and whether the tables take names
 * that differ only in case or accents for one, which makes a duplicate key of a creation
 * ambiguous.
 */
final class RefusedRows {

	private static final Logger logger = LoggerFactory.getLogger(RefusedRows.class);

	private final LeaseTables tables;

	/** The rows the database refused, each with why, as last reported. */
	private final Map<Row, String> refused = new ConcurrentHashMap<>();

	/**
	 * Whether the tables may take names that differ only in case or accents for one
	 * (MySQL tables of an earlier snapshot): then a duplicate key in a creation may be
	 * such a name rather than a lease another node created first.
	 */
	private volatile boolean namesCompareInexactly;

	RefusedRows(LeaseTables tables) {
		this.tables = tables;
	}

	/**
	 * Whether a statement failed for what one of its rows holds rather than for the state
	 * of the database: a duplicate key, a value the column cannot hold (SQLSTATE classes
	 * 22 and 23, or MySQL's 1366, an incorrect string value).
	 */
	static boolean refusesRow(Throwable ex) {
		if (ex instanceof DataIntegrityViolationException) {
			return true;
		}
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sqlException) {
				String state = sqlException.getSQLState();
				if ((state != null && (state.startsWith("22") || state.startsWith("23")))
						|| sqlException.getErrorCode() == 1366) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * @return whether a duplicate key may be a name that differs only in case or accents
	 */
	boolean namesCompareInexactly() {
		return this.namesCompareInexactly;
	}

	/**
	 * Split elections into those sent in batches and those the database refused before,
	 * sent on their own.
	 * @param table the table
	 * @param elections the elections
	 * @param batched where the others go
	 * @param alone where the refused go
	 */
	void split(String table, Collection<String> elections, List<String> batched, List<String> alone) {
		elections.forEach(
				(election) -> (this.refused.containsKey(new Row(table, election)) ? alone : batched).add(election));
	}

	/**
	 * Whether the database refuses a row of an election, as reported.
	 * @param election the election
	 * @return whether a row of it is refused in any table
	 */
	boolean refuses(String election) {
		for (Row row : this.refused.keySet()) {
			if (row.election().equals(election)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Report, once per cause, that the database refused an election's row: the election
	 * has no leader until it accepts it, and the others go on.
	 * @param table the table
	 * @param election the election
	 * @param ex why
	 * @param stored the names stored that the database takes for the election's, none of
	 * them the same: read after a duplicate key
	 */
	void refused(String table, String election, DataAccessException ex, List<String> stored) {
		boolean duplicate = ex instanceof DuplicateKeyException;
		if (duplicate && stored.isEmpty()) {
			// Another node created it, and deleted it since: the next round's read says.
			return;
		}
		String why = !duplicate ? String.valueOf(ex.getMostSpecificCause())
				: "the table takes it for " + stored.stream().map((name) -> "'" + name + "'").toList()
						+ ", which differs only in case or accents (its key's collation does not compare exactly; on"
						+ " MySQL and MariaDB: " + exactNamesStatements(this.tables.allTables()) + ")";
		if (!why.equals(this.refused.put(new Row(table, election), why))) {
			logger.warn("Election '{}': the database refuses its row in {}, and the election gets no leader until it"
					+ " accepts it; the other elections go on: {}", election, table, why);
		}
	}

	/** Rows of a table were accepted: report those that had been refused. */
	void accepted(String table, List<String> elections) {
		if (this.refused.isEmpty()) {
			return;
		}
		for (String election : elections) {
			if (this.refused.remove(new Row(table, election)) != null) {
				logger.info("Election '{}': the database accepts its row in {} now", election, table);
			}
		}
	}

	/**
	 * Warn, once, where tables created before the script made names compare exactly take
	 * names that differ only in case or accents for one.
	 * @param jdbc statements on the tables' database
	 */
	void checkNamesCompareExactly(JdbcTemplate jdbc) {
		Map<String, List<String>> inexact;
		try {
			inexact = LeaseSchema.inexactNameColumns(jdbc, this.tables);
		}
		catch (DataAccessException ex) {
			this.namesCompareInexactly = true;
			logger.warn("Could not check that the leader election tables compare names exactly: {}", ex.toString());
			return;
		}
		if (!inexact.isEmpty()) {
			this.namesCompareInexactly = true;
			List<String> columns = new ArrayList<>();
			inexact.forEach(
					(table, inexactColumns) -> inexactColumns.forEach((column) -> columns.add(table + "." + column)));
			logger.warn("The leader election tables take names that differ only in case or accents for one ({}):"
					+ " such elections share one lease row, and all but one of them get no leader; such node ids"
					+ " are taken for one node. Make them compare exactly (the script creates them so): {}",
					String.join(", ", columns), exactNamesStatements(inexact.keySet()));
		}
	}

	/** The statements that make the tables compare names exactly, for a message. */
	private static String exactNamesStatements(Collection<String> tables) {
		return String.join("; ", tables.stream().map(LeaseSchema::exactNames).toList());
	}

	/**
	 * A row of an election in a table.
	 *
	 * @param table the table
	 * @param election the election
	 */
	private record Row(String table, String election) {
	}

}
