package io.github.dbleader.shedlock.autoconfigure;

import java.time.ZoneId;
import java.util.TimeZone;

import io.github.dbleader.shedlock.ShedLockBridge;
import io.github.dbleader.shedlock.ShedLockTable;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the migration bridge from ShedLock's {@code JdbcTemplateLockProvider}
 * ({@link ShedLockBridge}): off unless {@code table-name} is set. Each mirrors a setting
 * of the old nodes' {@code JdbcTemplateLockProvider.Configuration}, with ShedLock's
 * default.
 */
@ConfigurationProperties("leader-election.shedlock.bridge")
public class ShedLockBridgeProperties {

	/**
	 * Name of ShedLock's table that the old nodes' JdbcTemplateLockProvider uses
	 * (ShedLock's default is "shedlock"), on the application's DataSource. When set,
	 * every lock of the ShedLock provider also takes ShedLock's row of its name, so that
	 * old and new nodes never run the same trigger during a rolling deploy; the start-up
	 * fails if the table or one of its columns is missing. Not set by default: no bridge.
	 */
	private @Nullable String tableName;

	/**
	 * Whether the old nodes' JdbcTemplateLockProvider uses the database's time
	 * (usingDbTime()); otherwise their own clocks, as ShedLock does by default. Must be
	 * the same as theirs.
	 */
	private boolean useDbTime;

	/**
	 * Time zone the old nodes write their times in when they do not use the database's
	 * time (forceUtcTimeZone() is "UTC"). Defaults to the JVM's default time zone, as
	 * ShedLock's.
	 */
	private @Nullable ZoneId timeZone;

	/** Column of the lock's name in ShedLock's table. */
	private String nameColumn = "name";

	/** Column of the lock's expiry in ShedLock's table. */
	private String lockUntilColumn = "lock_until";

	/** Column of the lock's acquisition time in ShedLock's table. */
	private String lockedAtColumn = "locked_at";

	/** Column of the lock's holder in ShedLock's table. */
	private String lockedByColumn = "locked_by";

	public @Nullable String getTableName() {
		return this.tableName;
	}

	public void setTableName(@Nullable String tableName) {
		this.tableName = tableName;
	}

	public boolean isUseDbTime() {
		return this.useDbTime;
	}

	public void setUseDbTime(boolean useDbTime) {
		this.useDbTime = useDbTime;
	}

	public @Nullable ZoneId getTimeZone() {
		return this.timeZone;
	}

	public void setTimeZone(@Nullable ZoneId timeZone) {
		this.timeZone = timeZone;
	}

	public String getNameColumn() {
		return this.nameColumn;
	}

	public void setNameColumn(String nameColumn) {
		this.nameColumn = nameColumn;
	}

	public String getLockUntilColumn() {
		return this.lockUntilColumn;
	}

	public void setLockUntilColumn(String lockUntilColumn) {
		this.lockUntilColumn = lockUntilColumn;
	}

	public String getLockedAtColumn() {
		return this.lockedAtColumn;
	}

	public void setLockedAtColumn(String lockedAtColumn) {
		this.lockedAtColumn = lockedAtColumn;
	}

	public String getLockedByColumn() {
		return this.lockedByColumn;
	}

	public void setLockedByColumn(String lockedByColumn) {
		this.lockedByColumn = lockedByColumn;
	}

	/**
	 * The table these settings describe.
	 * @return the table
	 * @throws IllegalArgumentException if the table name is not set, a name is not a
	 * plain identifier, or both {@code use-db-time} and {@code time-zone} are set
	 */
	ShedLockTable determineTable() {
		if (this.tableName == null) {
			throw new IllegalArgumentException("leader-election.shedlock.bridge.table-name is not set");
		}
		return new ShedLockTable(this.tableName, this.nameColumn, this.lockUntilColumn, this.lockedAtColumn,
				this.lockedByColumn, this.useDbTime,
				(this.timeZone != null) ? TimeZone.getTimeZone(this.timeZone) : null);
	}

}
