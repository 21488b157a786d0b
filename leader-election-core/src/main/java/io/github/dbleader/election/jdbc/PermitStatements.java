package io.github.dbleader.election.jdbc;

import java.util.Collections;

/**
 * The SQL text of the permits of cluster locks ({@code ClusterLocks.tryPermit}), apart
 * from {@link JdbcLockRepository}'s own statements: a permit is an ordinary lock row,
 * taken, extended, fenced and released by those statements, so permits add only the read
 * that chooses which of a lock's permit rows to try.
 */
final class PermitStatements {

	/**
	 * The read of which of a list of lock rows are held, by key, up to the open list of
	 * their names: a plain read that locks nothing, so it never waits for a fenced run or
	 * a take under way (I9). Missing rows and expired ones are the free ones.
	 */
	private final String heldAmong;

	PermitStatements(SqlDialect dialect, LeaseTables tables) {
		this.heldAmong = "SELECT election_name FROM " + dialect.byKey(tables.leaseTable()) + " WHERE expires_at > "
				+ dialect.now() + " AND election_name IN (";
	}

	/**
	 * The read of which of {@code keys} lock rows are held.
	 * @param keys how many rows, one parameter each
	 * @return the statement
	 */
	String heldAmong(int keys) {
		return this.heldAmong + String.join(", ", Collections.nCopies(keys, "?")) + ")";
	}

}
