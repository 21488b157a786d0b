package io.github.dbleader.shedlock;

import java.util.Objects;
import java.util.TimeZone;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * ShedLock's lock table as the old nodes' {@code JdbcTemplateLockProvider} uses it: its
 * name, its columns and where the old nodes take the time from. Each setting mirrors one
 * of ShedLock's {@code JdbcTemplateLockProvider.Configuration}, with ShedLock's defaults
 * ({@link #of(String)}).
 *
 * @param tableName the table ({@code withTableName}); a plain identifier, optionally
 * qualified by a schema ({@code schema.table})
 * @param nameColumn the column of the lock's name ({@code ColumnNames}, default
 * {@code name})
 * @param lockUntilColumn the column of the lock's expiry (default {@code lock_until})
 * @param lockedAtColumn the column of the lock's acquisition (default {@code locked_at})
 * @param lockedByColumn the column of the lock's holder (default {@code locked_by})
 * @param useDbTime whether the old nodes use {@code usingDbTime()}: times are then the
 * database's; otherwise each node's clock, written in {@code timeZone}
 * @param timeZone the time zone the old nodes write their times in without
 * {@code usingDbTime()} ({@code forceUtcTimeZone()} or {@code withTimeZone});
 * {@code null} for the JVM's default time zone, ShedLock's default
 */
public record ShedLockTable(String tableName, String nameColumn, String lockUntilColumn, String lockedAtColumn,
		String lockedByColumn, boolean useDbTime, @Nullable TimeZone timeZone) {

	/** ShedLock's default table name. */
	public static final String DEFAULT_TABLE_NAME = "shedlock";

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

	/**
	 * Check the settings.
	 * @throws IllegalArgumentException if a name is not a plain identifier, or if both
	 * {@code useDbTime} and {@code timeZone} are set (ShedLock refuses that too)
	 */
	public ShedLockTable {
		Objects.requireNonNull(tableName, "tableName must not be null");
		String[] qualified = tableName.split("\\.", -1);
		if (qualified.length > 2 || !identifier(qualified[0]) || !identifier(qualified[qualified.length - 1])) {
			throw new IllegalArgumentException("ShedLock's table name '" + tableName
					+ "' must be a plain identifier (letters, digits, underscores), optionally as schema.table");
		}
		requireIdentifier("nameColumn", nameColumn);
		requireIdentifier("lockUntilColumn", lockUntilColumn);
		requireIdentifier("lockedAtColumn", lockedAtColumn);
		requireIdentifier("lockedByColumn", lockedByColumn);
		if (useDbTime && timeZone != null) {
			throw new IllegalArgumentException("ShedLock's table uses either the database's time or a time zone ("
					+ timeZone.getID() + "), not both");
		}
	}

	/**
	 * ShedLock's defaults for a table: columns {@code name}, {@code lock_until},
	 * {@code locked_at} and {@code locked_by}, each node's time in the JVM's default time
	 * zone.
	 * @param tableName the table
	 * @return the settings
	 */
	public static ShedLockTable of(String tableName) {
		return new ShedLockTable(tableName, "name", "lock_until", "locked_at", "locked_by", false, null);
	}

	/**
	 * The same table, with times taken from the database as {@code usingDbTime()} does.
	 * @return the settings
	 */
	public ShedLockTable usingDbTime() {
		return new ShedLockTable(this.tableName, this.nameColumn, this.lockUntilColumn, this.lockedAtColumn,
				this.lockedByColumn, true, null);
	}

	private static void requireIdentifier(String setting, String name) {
		if (!identifier(name)) {
			throw new IllegalArgumentException("ShedLock's " + setting + " '" + name
					+ "' must be a plain identifier (letters, digits, underscores)");
		}
	}

	private static boolean identifier(@Nullable String name) {
		return name != null && IDENTIFIER.matcher(name).matches();
	}

}
