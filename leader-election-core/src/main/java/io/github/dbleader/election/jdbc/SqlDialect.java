package io.github.dbleader.election.jdbc;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What differs between databases in the lease statements: the database clock in epoch
 * milliseconds (UTC, so session time zones and daylight saving never matter), the
 * share lock of the fence, and how the server drops a stalled fenced transaction.
 */
public enum SqlDialect {

	/**
	 * MySQL 8.0+ and MariaDB 10.6+. {@code UTC_TIMESTAMP(6)} is evaluated once per
	 * statement and ignores the session time zone.
	 */
	MYSQL("mysql", "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
			"CONCAT(@@hostname, ':', @@port, ':', @@server_id)", " LOCK IN SHARE MODE") {

		@Override
		String limitFencedSession(long seconds) {
			// Drops the session of a holder frozen mid-transaction, which rolls it back and
			// frees the share lock (MySQL has no idle-transaction timeout).
			return "SET SESSION wait_timeout = " + seconds;
		}

		@Override
		String restoreFencedSession() {
			return "SET SESSION wait_timeout = @@GLOBAL.wait_timeout";
		}

	},

	/**
	 * PostgreSQL 12+. {@code clock_timestamp()} rather than {@code now()}: {@code now()} is
	 * frozen at the start of the transaction, which would make the fence's expiry check
	 * look into the past after waiting for the lock.
	 */
	POSTGRESQL("postgresql", "(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint)",
			"(COALESCE(host(inet_server_addr()), 'local') || ':' || current_setting('port'))", " FOR SHARE") {

		@Override
		String limitFencedSession(long seconds) {
			return "SET LOCAL idle_in_transaction_session_timeout = '" + seconds + "s'";
		}

	},

	/**
	 * H2 2.x. {@code EXTRACT(EPOCH ...)} of a {@code TIMESTAMP WITH TIME ZONE} is UTC;
	 * {@code DATEDIFF} is not an option, as it compares the local times of the session's
	 * time zone and so moves with the zone and with daylight saving. H2 has no shared-lock
	 * read, so the fence takes an exclusive row lock.
	 */
	H2("h2", "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)", "'h2'", " FOR UPDATE");

	private final String platform;

	private final String now;

	private final String serverIdentity;

	private final String shareLock;

	SqlDialect(String platform, String now, String serverIdentity, String shareLock) {
		this.platform = platform;
		this.now = now;
		this.serverIdentity = serverIdentity;
		this.shareLock = shareLock;
	}

	/**
	 * Platform name, as used in {@code schema-<platform>.sql}.
	 * @return the platform
	 */
	public String platform() {
		return this.platform;
	}

	/**
	 * Find the dialect for a platform name or a JDBC database product name.
	 * @param name e.g. {@code mysql}, {@code MariaDB}, {@code PostgreSQL}, {@code H2}
	 * @return the dialect
	 * @throws IllegalArgumentException if the platform is not supported; the message lists
	 * the supported ones
	 */
	public static SqlDialect forName(String name) {
		String normalized = name.trim().toLowerCase(Locale.ROOT);
		if (normalized.equals("mysql") || normalized.equals("mariadb")) {
			return MYSQL;
		}
		if (normalized.equals("postgresql") || normalized.equals("postgres")) {
			return POSTGRESQL;
		}
		if (normalized.equals("h2")) {
			return H2;
		}
		throw new IllegalArgumentException("Unsupported database '" + name
				+ "'; supported platforms are mysql (also for MariaDB), postgresql and h2");
	}

	/**
	 * SQL expression of the database clock in epoch milliseconds (UTC), the clock every
	 * lease decision uses. Handy for timestamps of fenced work that must be comparable
	 * with the lease times.
	 * @return the expression
	 */
	public String currentTimeMillis() {
		return this.now;
	}

	String now() {
		return this.now;
	}

	/** @return SQL expression that identifies the database server answering */
	String serverIdentity() {
		return this.serverIdentity;
	}

	/** @return clause appended to a SELECT to lock its row in share mode */
	String shareLock() {
		return this.shareLock;
	}

	/**
	 * Statement that makes the server end a fenced transaction whose client stalls for the
	 * given time, or {@code null} if the platform has none.
	 * @param seconds the limit
	 * @return the statement or {@code null}
	 */
	@Nullable String limitFencedSession(long seconds) {
		return null;
	}

	/**
	 * Statement that undoes {@link #limitFencedSession(long)} before the connection goes
	 * back to the pool, or {@code null} if nothing needs undoing.
	 * @return the statement or {@code null}
	 */
	@Nullable String restoreFencedSession() {
		return null;
	}

	/**
	 * Clause appended to a multi-row {@code INSERT} so that rows whose key exists already
	 * are left as they are, or {@code null} if the platform has none (then one
	 * {@code INSERT} per row).
	 * @param keyColumn a column of the key, for MySQL's no-op update
	 * @return the clause or {@code null}
	 */
	@Nullable String ignoreDuplicateKeys(String keyColumn) {
		return switch (this) {
			case MYSQL -> " ON DUPLICATE KEY UPDATE " + keyColumn + " = " + keyColumn;
			case POSTGRESQL -> " ON CONFLICT DO NOTHING";
			case H2 -> null;
		};
	}

}
