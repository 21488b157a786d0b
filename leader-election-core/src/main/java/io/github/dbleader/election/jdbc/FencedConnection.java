package io.github.dbleader.election.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The connection of a new fenced transaction of a {@link DataSourceTransactionManager},
 * bound for that transaction manager before the transaction begins, so that it and every
 * {@code JdbcTemplate} of the application join it as usual, behind a proxy that decides
 * how the transaction ends.
 *
 * <p>
 * A failed commit is what the caller learns: a rollback after it (which
 * {@link JdbcTransactionManager}, Spring Boot's, always attempts) does not fail again on
 * a connection the network or the server broke, which the transaction manager would log
 * as an error and throw instead of the commit's failure.
 *
 * <p>
 * Session-limited, on MySQL or MariaDB with a connection in autocommit mode (a pool's
 * default), the transaction's first and last statements also set and undo the session
 * limit that makes the server drop a holder frozen mid-transaction (I5): one {@code SET}
 * switches autocommit off and sets {@code wait_timeout} and {@code net_write_timeout},
 * and one {@code SET} restores them and switches autocommit on, which commits. With the
 * fence between them, a fenced run sends three statements of its own instead of six (a
 * transaction manager's autocommit off, commit and autocommit on, around a separate limit
 * and restore). The proxy then reports autocommit off (the manager sends nothing to
 * begin), and the driver's own autocommit setting is never changed: the session ends the
 * run as it began. A token in a session variable, set when the transaction begins and
 * checked by the commit statement, fails the commit if the driver reconnected meanwhile
 * (Connector/J's {@code autoReconnect}), so a run is never reported committed on another
 * session.
 */
final class FencedConnection {

	/** Session variable with the token of the session's fenced transaction. */
	private static final String TOKEN = "@leader_election_fenced_session";

	/**
	 * The transaction manager's data source: the connection's source and the key it is
	 * bound with.
	 */
	private final DataSource dataSource;

	/** Whether transactions on connections in autocommit mode carry the session limit. */
	private final boolean limitSessions;

	private FencedConnection(DataSource dataSource, boolean limitSessions) {
		this.dataSource = dataSource;
		this.limitSessions = limitSessions;
	}

	/**
	 * The fenced connections of a transaction manager, if it is a
	 * {@link DataSourceTransactionManager} with a data source.
	 * @param transactionManager the application's transaction manager for fenced work
	 * @param limitSessions whether transactions on connections in autocommit mode are
	 * session-limited (MySQL and MariaDB)
	 * @return the fenced connections, or {@code null} where fenced work must use the
	 * transaction manager alone
	 */
	static @Nullable FencedConnection of(PlatformTransactionManager transactionManager, boolean limitSessions) {
		DataSource dataSource = (transactionManager instanceof DataSourceTransactionManager dataSourceTransactions)
				? dataSourceTransactions.getDataSource() : null;
		return (dataSource != null) ? new FencedConnection(dataSource, limitSessions) : null;
	}

	/**
	 * Run work in a new transaction on a fenced connection, unless a transaction is under
	 * way on this thread.
	 * @param <T> the result type
	 * @param seconds the session's {@code wait_timeout} and {@code net_write_timeout}
	 * while a session-limited transaction lasts
	 * @param work what runs in the transaction (it begins, and ends, transactions of the
	 * transaction manager; the first joins this one), told whether the transaction's
	 * begin and commit limit the session
	 * @return the work's result, or {@code null} if a transaction is under way: then
	 * nothing ran
	 */
	<T> @Nullable Result<T> run(long seconds, Function<Boolean, T> work) {
		if (TransactionSynchronizationManager.isSynchronizationActive()
				|| TransactionSynchronizationManager.hasResource(this.dataSource)) {
			return null;
		}
		// Nothing is bound and no synchronization is active: a plain connection of the
		// pool.
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		Session session = new Session(connection, ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
		try {
			if (this.limitSessions && connection.getAutoCommit()) {
				session.limit(seconds);
			}
		}
		catch (SQLException ex) {
			session.close();
			// What the transaction manager throws when it cannot begin either.
			throw new CannotCreateTransactionException("Could not begin a fenced JDBC transaction", ex);
		}
		TransactionSynchronizationManager.bindResource(this.dataSource, new ConnectionHolder(session.proxy()));
		try {
			return new Result<>(work.apply(session.limited));
		}
		finally {
			TransactionSynchronizationManager.unbindResource(this.dataSource);
			session.close();
		}
	}

	/**
	 * What the work returned.
	 *
	 * @param <T> the result type
	 * @param value the value
	 */
	record Result<T>(T value) {
	}

	/**
	 * One connection's fenced transaction.
	 */
	private static final class Session implements InvocationHandler {

		private final Connection connection;

		private final long token;

		/** Whether the transaction's begin and commit set and undo the session limit. */
		private boolean limited;

		/**
		 * Whether the session is back to how it began (for a session-limited one:
		 * autocommit on, its own timeouts) with no transaction open, as far as this proxy
		 * knows.
		 */
		private boolean restored = true;

		/**
		 * Whether a commit failed, after which this transaction already tried to roll
		 * back.
		 */
		private boolean commitFailed;

		Session(Connection connection, long token) {
			this.connection = connection;
			this.token = token;
		}

		void limit(long seconds) throws SQLException {
			this.restored = false;
			execute("SET SESSION autocommit = 0, "
					+ SqlDialect.SESSION_LIMITS.replace(":seconds", Long.toString(seconds)) + ", " + TOKEN + " = "
					+ this.token);
			this.limited = true;
		}

		Connection proxy() {
			return (Connection) Proxy.newProxyInstance(FencedConnection.class.getClassLoader(),
					new Class<?>[] { Connection.class }, this);
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			switch (method.getName()) {
				case "getAutoCommit":
					if (this.limited) {
						return false;
					}
					break;
				case "setAutoCommit":
					if (this.limited) {
						// Off already; on would commit behind the transaction manager's
						// back.
						if (Boolean.TRUE.equals(args[0])) {
							throw new SQLException("A fenced transaction cannot switch to autocommit mode");
						}
						return null;
					}
					break;
				case "commit":
					if (method.getParameterCount() == 0) {
						commit();
						return null;
					}
					break;
				case "rollback":
					if (method.getParameterCount() == 0) {
						rollback();
						return null;
					}
					break;
				case "close":
					// The transaction's end closes it.
					return null;
				case "equals":
					return proxy == args[0];
				case "hashCode":
					return System.identityHashCode(proxy);
				case "toString":
					return "Fenced transaction on " + this.connection;
				default:
					break;
			}
			try {
				return method.invoke(this.connection, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		/**
		 * Commit; in a session-limited transaction, restore the limit and commit in one
		 * statement: switching autocommit on commits. A session without this
		 * transaction's token (the driver reconnected) refuses the value of autocommit,
		 * and the statement changes nothing.
		 */
		private void commit() throws SQLException {
			try {
				if (this.limited) {
					execute("SET SESSION " + SqlDialect.SESSION_LIMITS_RESTORED + ", autocommit = IF(" + TOKEN + " = "
							+ this.token + ", 'ON', 'not the session of this fenced transaction'), " + TOKEN
							+ " = NULL");
					this.restored = true;
				}
				else {
					this.connection.commit();
				}
			}
			catch (SQLException ex) {
				// Whatever the server did, nothing must stay open: the caller learns the
				// commit failed.
				try {
					rollback();
				}
				catch (SQLException rollbackFailure) {
					this.restored = false;
					ex.addSuppressed(rollbackFailure);
				}
				this.commitFailed = true;
				throw ex;
			}
		}

		/**
		 * Roll back, unless a failed commit tried already: then a transaction manager's
		 * rollback after the commit exception would fail again on a broken connection, be
		 * logged as an error and replace the commit's exception. A session left
		 * unrestored is aborted when the transaction ends.
		 */
		private void rollback() throws SQLException {
			if (this.commitFailed) {
				return;
			}
			if (!this.limited) {
				this.connection.rollback();
				return;
			}
			try {
				execute("ROLLBACK");
			}
			finally {
				execute("SET SESSION " + SqlDialect.SESSION_LIMITS_RESTORED + ", autocommit = 1, " + TOKEN + " = NULL");
				this.restored = true;
			}
		}

		private void execute(String sql) throws SQLException {
			try (Statement statement = this.connection.createStatement()) {
				statement.execute(sql);
			}
		}

		/**
		 * Give the connection back; one whose session could not be restored (usually
		 * broken already) is aborted, so that no other work inherits the limit or an open
		 * transaction.
		 */
		void close() {
			try {
				if (this.restored) {
					this.connection.close();
				}
				else {
					this.connection.abort(Runnable::run);
				}
			}
			catch (SQLException | RuntimeException ex) {
				// closed anyway
			}
		}

	}

}
