package io.github.dbleader.election.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A fenced transaction on MySQL or MariaDB whose first and last statements also set and
 * undo the session limit that makes the server drop a holder frozen mid-transaction (I5):
 * one {@code SET} switches autocommit off and sets {@code wait_timeout}, and one
 * {@code SET} restores {@code wait_timeout} and switches autocommit on, which commits.
 * With the fence between them, a fenced run sends three statements of its own instead of
 * six (a transaction manager's autocommit off, commit and autocommit on, around a separate
 * limit and restore).
 *
 * <p>It applies where the fenced transaction would otherwise be a
 * {@link DataSourceTransactionManager}'s new transaction on a connection in autocommit
 * mode (a pool's default): no transaction under way on the thread. The connection is bound
 * for that transaction manager before it begins, so that it and every
 * {@code JdbcTemplate} of the application join it as usual, behind a proxy that reports
 * autocommit off (the manager then sends nothing to begin) and whose commit and rollback
 * are the statements above. The driver's own autocommit setting is never changed: the
 * session ends the run as it began.
 *
 * <p>A token in a session variable, set when the transaction begins and checked by the
 * commit statement, fails the commit if the driver reconnected meanwhile (Connector/J's
 * {@code autoReconnect}), so a run is never reported committed on another session.
 */
final class SessionLimitedTransaction {

	/** Session variable with the token of the session's fenced transaction. */
	private static final String TOKEN = "@leader_election_fenced_session";

	/** The transaction manager's data source: the connection's source and the key it is bound with. */
	private final DataSource dataSource;

	private SessionLimitedTransaction(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * The session-limited transactions of a transaction manager, if it is a
	 * {@link DataSourceTransactionManager} with a data source.
	 * @param transactionManager the application's transaction manager for fenced work
	 * @return the transactions, or {@code null} where fenced work must use the transaction
	 * manager's own begin and commit
	 */
	static @Nullable SessionLimitedTransaction of(PlatformTransactionManager transactionManager) {
		DataSource dataSource = (transactionManager instanceof DataSourceTransactionManager dataSourceTransactions)
				? dataSourceTransactions.getDataSource() : null;
		return (dataSource != null) ? new SessionLimitedTransaction(dataSource) : null;
	}

	/**
	 * Run work in a new session-limited transaction, if one applies.
	 * @param <T> the result type
	 * @param seconds the session's {@code wait_timeout} while the transaction lasts
	 * @param work what runs in the transaction (it begins, and ends, transactions of the
	 * transaction manager; the first joins this one)
	 * @return the work's result, or {@code null} if no session-limited transaction applies
	 * (a transaction is under way on this thread, or the connection is not in autocommit
	 * mode): then nothing ran
	 */
	<T> @Nullable Result<T> run(long seconds, Supplier<T> work) {
		if (TransactionSynchronizationManager.isSynchronizationActive()
				|| TransactionSynchronizationManager.hasResource(this.dataSource)) {
			return null;
		}
		// Nothing is bound and no synchronization is active: a plain connection of the pool.
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		Session session = new Session(connection, ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
		try {
			if (!connection.getAutoCommit()) {
				return null;
			}
			session.begin(seconds);
		}
		catch (SQLException ex) {
			// What the transaction manager throws when it cannot begin either.
			throw new CannotCreateTransactionException("Could not begin a fenced JDBC transaction", ex);
		}
		finally {
			if (!session.begun) {
				session.close();
			}
		}
		TransactionSynchronizationManager.bindResource(this.dataSource, new ConnectionHolder(session.proxy()));
		try {
			return new Result<>(work.get());
		}
		finally {
			TransactionSynchronizationManager.unbindResource(this.dataSource);
			session.close();
		}
	}

	/**
	 * What the work returned.
	 * @param <T> the result type
	 * @param value the value
	 */
	record Result<T>(T value) {
	}

	/**
	 * One connection's session-limited transaction.
	 */
	private static final class Session implements InvocationHandler {

		private final Connection connection;

		private final long token;

		private boolean begun;

		/** Whether the session is back to how it began: autocommit on, its own wait_timeout. */
		private boolean restored = true;

		/** Whether a commit failed, after which this transaction already tried to roll back. */
		private boolean commitFailed;

		Session(Connection connection, long token) {
			this.connection = connection;
			this.token = token;
		}

		void begin(long seconds) throws SQLException {
			this.restored = false;
			execute("SET SESSION autocommit = 0, wait_timeout = " + seconds + ", " + TOKEN + " = " + this.token);
			this.begun = true;
		}

		Connection proxy() {
			return (Connection) Proxy.newProxyInstance(SessionLimitedTransaction.class.getClassLoader(),
					new Class<?>[] { Connection.class }, this);
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			switch (method.getName()) {
				case "getAutoCommit":
					return false;
				case "setAutoCommit":
					// Off already; on would commit behind the transaction manager's back.
					if (Boolean.TRUE.equals(args[0])) {
						throw new SQLException("A fenced transaction cannot switch to autocommit mode");
					}
					return null;
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
					return "Session-limited fenced transaction on " + this.connection;
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
		 * Restore the limit and commit, in one statement: switching autocommit on commits.
		 * A session without this transaction's token (the driver reconnected) refuses the
		 * value of autocommit, and the statement changes nothing.
		 */
		private void commit() throws SQLException {
			try {
				execute("SET SESSION wait_timeout = @@GLOBAL.wait_timeout, autocommit = IF(" + TOKEN + " = "
						+ this.token + ", 'ON', 'not the session of this fenced transaction'), " + TOKEN + " = NULL");
				this.restored = true;
			}
			catch (SQLException ex) {
				// Whatever the server did, nothing must stay open: the caller learns the commit failed.
				try {
					rollback();
				}
				catch (SQLException rollbackFailure) {
					ex.addSuppressed(rollbackFailure);
				}
				this.commitFailed = true;
				throw ex;
			}
		}

		/**
		 * Roll back, unless a failed commit tried already: then a transaction manager's
		 * rollback after the commit exception (JdbcTransactionManager's) would fail again on
		 * a broken connection, be logged as an error and replace the commit's exception.
		 * A session left unrestored is aborted when the transaction ends.
		 */
		private void rollback() throws SQLException {
			if (this.commitFailed) {
				return;
			}
			try {
				execute("ROLLBACK");
			}
			finally {
				execute("SET SESSION wait_timeout = @@GLOBAL.wait_timeout, autocommit = 1, " + TOKEN + " = NULL");
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
