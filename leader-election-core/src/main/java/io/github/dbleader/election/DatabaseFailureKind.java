package io.github.dbleader.election;

import java.io.EOFException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.NonTransientDataAccessResourceException;
import org.springframework.dao.PermissionDeniedDataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;

/**
 * What made a statement of this node's heartbeat fail, as the health
 * ({@link HeartbeatFailure#kind()}), the log and the meters name it. Only
 * {@link #UNREACHABLE} and {@link #TIMED_OUT} mean that the database did not answer; the
 * others are answers: an error that goes on every round needs a person (grant the
 * privilege, migrate the schema), and one that comes and goes (a deadlock) does not.
 */
public enum DatabaseFailureKind {

	/**
	 * No connection: refused, reset or lost, the host unknown, the pool unable to open
	 * one.
	 */
	UNREACHABLE("database unreachable"),

	/**
	 * The statement timed out: the database, or the network to it, did not answer in
	 * time.
	 */
	TIMED_OUT("statement timed out"),

	/**
	 * A deadlock, a lock wait timeout, a serialization failure or a Galera certification
	 * conflict: another transaction won. Passes on its own; a round that loses tries
	 * again.
	 */
	CONFLICT("deadlock or lock wait"),

	/** A duplicate key or another constraint refused a write. */
	CONSTRAINT_VIOLATED("constraint violated"),

	/**
	 * The statement does not fit the schema: a missing table or column (tables created by
	 * another version, or not at all), or SQL the database does not accept.
	 */
	SCHEMA("missing table or column, or bad SQL"),

	/** The database user lacks a privilege on the tables, or cannot log in. */
	PERMISSION_DENIED("permission denied"),

	/** None of the above. */
	OTHER("unclassified failure");

	/**
	 * Vendor error codes that name a missing privilege: MySQL and MariaDB's 1044
	 * (database), 1045 (log-in), 1142 (table), 1143 (column) and 1227 (operation), whose
	 * SQLState 42000 would otherwise say bad SQL, and H2's 90096 (object) and 90040
	 * (administrator).
	 */
	private static final Set<Integer> PERMISSION_CODES = Set.of(1044, 1045, 1142, 1143, 1227, 90040, 90096);

	/**
	 * MySQL and MariaDB's lock wait timeout (SQLState HY000) and H2's (SQLState HYT00).
	 */
	private static final Set<Integer> LOCK_WAIT_CODES = Set.of(1205, 50200);

	/**
	 * Vendor error codes of a statement the server ended at its time limit under SQLState
	 * HY000, which says nothing: MySQL's 3024, {@code MAX_EXECUTION_TIME} exceeded.
	 */
	private static final Set<Integer> TIMEOUT_CODES = Set.of(3024);

	/** Bound of the walk down the causes, against a cycle of causes. */
	private static final int MAX_CAUSES = 32;

	private final String description;

	DatabaseFailureKind(String description) {
		this.description = description;
	}

	/**
	 * @return what happened, in a few words, as the log and the health say it
	 */
	public String description() {
		return this.description;
	}

	/**
	 * Whether the database did not answer ({@link #UNREACHABLE}, {@link #TIMED_OUT})
	 * rather than answer with an error.
	 * @return {@code true} if it did not answer
	 */
	public boolean databaseUnreachable() {
		return this == UNREACHABLE || this == TIMED_OUT;
	}

	/**
	 * Classify a failure. The deepest cause that tells wins: the driver's exception
	 * carries the server's SQLState and error code, and the wrappers above it (Spring's
	 * translation, the pool's) may only guess, e.g. Spring calls PostgreSQL's
	 * insufficient privilege bad SQL, and a pool that cannot connect because the password
	 * is wrong a resource failure.
	 * @param failure what a statement threw
	 * @return its kind, {@link #OTHER} if no cause tells
	 */
	static DatabaseFailureKind of(Throwable failure) {
		DatabaseFailureKind found = OTHER;
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < MAX_CAUSES; depth++) {
			DatabaseFailureKind kind = ofOne(cause);
			if (kind != null) {
				found = kind;
			}
			Throwable next = cause.getCause();
			if (next == null && cause instanceof SQLException sql) {
				// A batch's BatchUpdateException keeps the statement's own failure there.
				next = sql.getNextException();
			}
			cause = (next != cause) ? next : null;
		}
		return found;
	}

	private static @Nullable DatabaseFailureKind ofOne(Throwable failure) {
		if (failure instanceof SQLException sql) {
			return ofSqlException(sql);
		}
		if (failure instanceof SocketTimeoutException || failure instanceof QueryTimeoutException) {
			return TIMED_OUT;
		}
		if (failure instanceof SocketException || failure instanceof UnknownHostException
				|| failure instanceof EOFException) {
			return UNREACHABLE;
		}
		if (failure instanceof DataIntegrityViolationException) {
			return CONSTRAINT_VIOLATED;
		}
		if (failure instanceof ConcurrencyFailureException) {
			return CONFLICT;
		}
		if (failure instanceof PermissionDeniedDataAccessException) {
			return PERMISSION_DENIED;
		}
		if (failure instanceof InvalidDataAccessResourceUsageException) {
			return SCHEMA;
		}
		if (failure instanceof NonTransientDataAccessResourceException
				|| failure instanceof TransientDataAccessResourceException
				|| failure instanceof RecoverableDataAccessException) {
			// DataAccessResourceFailureException, CannotGetJdbcConnectionException among
			// them.
			return UNREACHABLE;
		}
		return null;
	}

	private static @Nullable DatabaseFailureKind ofSqlException(SQLException failure) {
		if (PERMISSION_CODES.contains(failure.getErrorCode())) {
			return PERMISSION_DENIED;
		}
		if (LOCK_WAIT_CODES.contains(failure.getErrorCode())) {
			return CONFLICT;
		}
		if (TIMEOUT_CODES.contains(failure.getErrorCode())) {
			return TIMED_OUT;
		}
		DatabaseFailureKind kind = ofSqlState(failure.getSQLState());
		if (kind != null) {
			return kind;
		}
		if (failure instanceof SQLTimeoutException) {
			return TIMED_OUT;
		}
		if (failure instanceof SQLTransientConnectionException || failure instanceof SQLNonTransientConnectionException
				|| failure instanceof SQLRecoverableException) {
			return UNREACHABLE;
		}
		if (failure instanceof SQLIntegrityConstraintViolationException) {
			return CONSTRAINT_VIOLATED;
		}
		if (failure instanceof SQLTransactionRollbackException) {
			return CONFLICT;
		}
		if (failure instanceof SQLInvalidAuthorizationSpecException) {
			return PERMISSION_DENIED;
		}
		if (failure instanceof SQLSyntaxErrorException) {
			return SCHEMA;
		}
		return null;
	}

	private static @Nullable DatabaseFailureKind ofSqlState(@Nullable String state) {
		if (state == null || state.length() < 2) {
			return null;
		}
		switch (state) {
			// Statement timeout or cancel (PostgreSQL, H2), ODBC's timeouts, and MySQL
			// and MariaDB's interrupted query (max_statement_time).
			case "57014", "HYT00", "HYT01", "70100":
				return TIMED_OUT;
			// PostgreSQL's insufficient_privilege, in the class of syntax errors.
			case "42501":
				return PERMISSION_DENIED;
			// PostgreSQL's lock_not_available (lock_timeout, NOWAIT).
			case "55P03":
				return CONFLICT;
			// PostgreSQL shutting down, or starting up.
			case "57P01", "57P02", "57P03":
				return UNREACHABLE;
			default:
				break;
		}
		return switch (state.substring(0, 2)) {
			case "08" -> UNREACHABLE;
			case "23" -> CONSTRAINT_VIOLATED;
			case "28" -> PERMISSION_DENIED;
			case "40" -> CONFLICT;
			case "42" -> SCHEMA;
			default -> null;
		};
	}

}
