package io.github.dbleader.shedlock;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * The statements on ShedLock's table that take, extend and release a lock row the way
 * ShedLock's {@code JdbcTemplateLockProvider} does, so that old nodes, still on it, and
 * the bridge exclude each other: the same conditions on the same columns, with the same
 * time. With node time the times are parameters ({@code :lockUntil}, {@code :now},
 * {@code :unlockTime}); with database time they are the database's clock expression that
 * ShedLock uses on each database (UTC on MySQL, MariaDB and PostgreSQL, the session's on
 * H2), and only durations are parameters.
 *
 * <p>
 * Named parameters: {@code :name}, {@code :lockedBy}, and the time parameters above or
 * {@code :atMostForMicros}/{@code :atLeastForMicros} (MySQL, H2) or
 * {@code :atMostForSeconds}/{@code :atLeastForSeconds} (PostgreSQL).
 */
final class ShedLockStatements {

	/** Inserts the row held; {@code null} where {@link #take} inserts it too. */
	final @Nullable String insert;

	/** Takes the row if it has expired (on PostgreSQL, inserting it if missing). */
	final String take;

	/** Moves the expiry of the row this node holds, if it has not expired. */
	final String extend;

	/**
	 * Sets the expiry to the later of now and {@code lockAtLeastFor} after the
	 * acquisition.
	 */
	final String unlock;

	/** Reads no row, but fails if the table or a column is missing. */
	final String check;

	private ShedLockStatements(@Nullable String insert, String take, String extend, String unlock, String check) {
		this.insert = insert;
		this.take = take;
		this.extend = extend;
		this.unlock = unlock;
		this.check = check;
	}

	/**
	 * The statements for a database.
	 * @param table ShedLock's table
	 * @param databaseProductName the JDBC driver's name of the database
	 * @return the statements
	 * @throws IllegalStateException if the table uses database time on a database whose
	 * clock expression is not known here
	 */
	static ShedLockStatements of(ShedLockTable table, String databaseProductName) {
		Platform platform = Platform.of(databaseProductName);
		String t = table.tableName();
		String name = table.nameColumn();
		String until = table.lockUntilColumn();
		String at = table.lockedAtColumn();
		String by = table.lockedByColumn();
		String now;
		String atMostFor;
		String atLeastFor;
		if (!table.useDbTime()) {
			now = ":now";
			atMostFor = ":lockUntil";
			atLeastFor = null;
		}
		else if (platform == Platform.POSTGRESQL) {
			now = "timezone('utc', CURRENT_TIMESTAMP)";
			atMostFor = now + " + make_interval(secs => :atMostForSeconds)";
			atLeastFor = at + " + make_interval(secs => :atLeastForSeconds)";
		}
		else if (platform == Platform.MYSQL || platform == Platform.H2) {
			now = (platform == Platform.MYSQL) ? "UTC_TIMESTAMP(3)" : "CURRENT_TIMESTAMP(3)";
			atMostFor = "TIMESTAMPADD(MICROSECOND, :atMostForMicros, " + now + ")";
			atLeastFor = "TIMESTAMPADD(MICROSECOND, :atLeastForMicros, " + at + ")";
		}
		else {
			throw new IllegalStateException("use-db-time is supported on MySQL, MariaDB, PostgreSQL and H2, not on "
					+ databaseProductName + "; the bridge can follow old nodes that use their own clocks there");
		}
		String values = "INSERT INTO " + t + " (" + name + ", " + until + ", " + at + ", " + by + ") VALUES (:name, "
				+ atMostFor + ", " + now + ", :lockedBy)";
		String set = " SET " + until + " = " + atMostFor + ", " + at + " = " + now + ", " + by + " = :lockedBy";
		String unlockTime = (atLeastFor != null)
				? "CASE WHEN " + atLeastFor + " > " + now + " THEN " + atLeastFor + " ELSE " + now + " END"
				: ":unlockTime";
		String extend = "UPDATE " + t + " SET " + until + " = " + atMostFor + " WHERE " + name + " = :name AND " + by
				+ " = :lockedBy AND " + until + " > " + now;
		String unlock = "UPDATE " + t + " SET " + until + " = " + unlockTime + " WHERE " + name + " = :name AND " + by
				+ " = :lockedBy";
		String check = "SELECT " + name + ", " + until + ", " + at + ", " + by + " FROM " + t + " WHERE 1 = 0";
		if (platform == Platform.POSTGRESQL) {
			// As ShedLock on PostgreSQL: one statement, and no failed insert that aborts
			// the transaction.
			String upsert = values + " ON CONFLICT (" + name + ") DO UPDATE" + set + " WHERE " + t + "." + until
					+ " <= " + now;
			return new ShedLockStatements(null, upsert, extend, unlock, check);
		}
		String insert = (table.useDbTime() && platform == Platform.MYSQL)
				? values.replaceFirst("^INSERT", "INSERT IGNORE") : values;
		String take = "UPDATE " + t + set + " WHERE " + name + " = :name AND " + until + " <= " + now;
		return new ShedLockStatements(insert, take, extend, unlock, check);
	}

	private enum Platform {

		MYSQL, POSTGRESQL, H2, OTHER;

		static Platform of(String databaseProductName) {
			return switch (databaseProductName.toLowerCase(Locale.ROOT)) {
				case "mysql", "mariadb" -> MYSQL;
				case "postgresql" -> POSTGRESQL;
				case "h2" -> H2;
				default -> OTHER;
			};
		}

	}

}
