package io.github.dbleader.election.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.dbleader.election.FencedCallback;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs fenced work, of an election or of a cluster lock, in a transaction of the
 * application's transaction manager that first passes a fence statement (lock a row in
 * share mode, check holder, term and expiry, limit the session), so that a change of
 * holder that writes that row waits for the work (I5), and a holder frozen in the middle
 * blocks it no longer than a hold limit.
 */
final class FencedTransactionTemplate {

	private final PlatformTransactionManager transactionManager;

	private final SqlDialect dialect;

	private final JdbcTemplate jdbc;

	private final NamedParameterJdbcTemplate statements;

	private final @Nullable String limitFencedSession;

	/**
	 * Connections of new fenced transactions, session-limited where the dialect needs a
	 * separate limit; {@code null} where the transaction manager is not a data source's.
	 */
	private final @Nullable FencedConnection fencedConnection;

	private final String fenceTable;

	/**
	 * Writes an election's fence row in the fenced transaction, where the server
	 * certifies write sets.
	 */
	private final @Nullable String certifyFence;

	/**
	 * Whether the application's database certifies write sets (Galera), found out at the
	 * first fenced run; {@code null} before.
	 */
	private volatile @Nullable Boolean certifies;

	/**
	 * Prefix of an election's fence statement that makes it a causal read (MariaDB
	 * Galera), set with {@link #certifies}; empty where there is none.
	 */
	private volatile String causalFence = "";

	/**
	 * Create a template.
	 * @param transactionManager the application's transaction manager; must manage
	 * {@code applicationDataSource}
	 * @param applicationDataSource the data source fenced work writes to
	 * @param dialect the dialect
	 * @param tables the tables
	 */
	FencedTransactionTemplate(PlatformTransactionManager transactionManager, DataSource applicationDataSource,
			SqlDialect dialect, LeaseTables tables) {
		this.transactionManager = transactionManager;
		this.dialect = dialect;
		this.jdbc = new JdbcTemplate(applicationDataSource);
		this.statements = new NamedParameterJdbcTemplate(this.jdbc);
		this.limitFencedSession = dialect.limitFencedSession();
		this.fencedConnection = FencedConnection.of(transactionManager, this.limitFencedSession != null);
		this.fenceTable = tables.fenceTable();
		this.certifyFence = dialect.certifyFence(this.fenceTable);
	}

	/**
	 * @return statements on the application's data source, which join its transactions
	 */
	JdbcTemplate jdbcTemplate() {
		return this.jdbc;
	}

	/**
	 * @return whether fenced transactions are known to run on a server that certifies
	 * write sets
	 */
	boolean certifiesWriteSets() {
		return Boolean.TRUE.equals(this.certifies);
	}

	/**
	 * Run fenced work.
	 * @param <T> the result type
	 * @param fence the fence statement, with named parameters {@code election},
	 * {@code node}, {@code term} and {@code seconds}
	 * @param electionFence whether it locks an election's fence row, which a server that
	 * certifies write sets must certify and read causally (a lock's fence is its lease
	 * row, which Galera certifies no further)
	 * @param key the election or lock
	 * @param nodeId this node
	 * @param term the term it holds
	 * @param maxHoldTime how long the database may keep a stalled transaction open
	 * @param refusal the exception when the fence refuses
	 * @param callback the work
	 * @return the work's result
	 */
	<T extends @Nullable Object> T run(String fence, boolean electionFence, String key, String nodeId, long term,
			Duration maxHoldTime, Supplier<RuntimeException> refusal, FencedCallback<T> callback) {
		long seconds = Math.max(1, (maxHoldTime.toMillis() + 999) / 1000);
		return fencedTransaction(seconds, (sessionLimited) -> inFence(fence, electionFence, key, nodeId, term, seconds,
				sessionLimited, refusal, callback));
	}

	/**
	 * Whether fenced transactions must write the fence row, asked of the application's
	 * database once.
	 */
	private boolean certifies() {
		Boolean certifies = this.certifies;
		if (certifies == null) {
			ServerKind server = (this.certifyFence != null) ? ServerKind.of(this.jdbc, this.dialect)
					: ServerKind.SINGLE;
			String causalRead = this.dialect.causalRead();
			this.causalFence = (server.mariaDbGalera() && causalRead != null) ? causalRead : "";
			certifies = server.certifies();
			this.certifies = certifies;
		}
		return certifies;
	}

	/**
	 * Run fenced work in a new transaction of the application's transaction manager (or
	 * the one under way): where it can, on a {@link FencedConnection}, whose begin and
	 * commit may also set and undo the session limit.
	 * @param seconds the hold limit
	 * @param work the work, told whether the transaction's begin and commit limit the
	 * session already
	 */
	private <T extends @Nullable Object> T fencedTransaction(long seconds, Function<Boolean, T> work) {
		FencedConnection fencedConnection = this.fencedConnection;
		if (fencedConnection != null) {
			FencedConnection.Result<T> result = fencedConnection.run(seconds,
					(sessionLimited) -> inTransaction(this.transactionManager, () -> work.apply(sessionLimited)));
			if (result != null) {
				return result.value();
			}
		}
		return inTransaction(this.transactionManager, () -> work.apply(false));
	}

	private <T extends @Nullable Object> T inFence(String fence, boolean electionFence, String key, String nodeId,
			long term, long seconds, boolean sessionLimited, Supplier<RuntimeException> refusal,
			FencedCallback<T> callback) {
		FencedSession session = this.jdbc
			.execute((ConnectionCallback<FencedSession>) (connection) -> FencedSession.limit(connection,
					Duration.ofSeconds(seconds), sessionLimited ? null : this.dialect.restoreFencedSession()));
		try {
			if (!lockFence(fence, electionFence, key, nodeId, term, seconds, sessionLimited)) {
				throw refusal.get();
			}
		}
		catch (Throwable ex) {
			session.restoreUnlessSynchronized();
			throw ex;
		}
		try {
			return callback.doInFence(term);
		}
		finally {
			session.restoreUnlessSynchronized();
		}
	}

	/**
	 * Run the fence statement (lock, check and, where it can, session limit), after its
	 * separate session limit if it needs one and, on a server that certifies write sets,
	 * after the write that puts an election's fence row in the transaction's write set.
	 * @return whether this node holds the lease with that term
	 */
	private boolean lockFence(String fence, boolean electionFence, String key, String nodeId, long term, long seconds,
			boolean sessionLimited) {
		Map<String, Object> parameters = Map.of("election", key, "node", nodeId, "term", term, "seconds", seconds);
		if (this.limitFencedSession != null && !sessionLimited) {
			this.statements.update(this.limitFencedSession, parameters);
		}
		if (this.certifyFence != null && electionFence && certifies()) {
			// No row: no lease either, which the fence below reports.
			try {
				this.statements.update(this.certifyFence, parameters);
			}
			catch (BadSqlGrammarException ex) {
				throw new IllegalStateException("Fenced work on a Galera cluster writes the fence row's fenced_runs"
						+ " column, which tables created before it lack: ALTER TABLE " + this.fenceTable
						+ " ADD COLUMN fenced_runs BIGINT NOT NULL DEFAULT 0", ex);
			}
		}
		// On MariaDB Galera a causal read: a change of holder committed on another node
		// refuses the fence at once, not at the commit after the work.
		String statement = electionFence ? this.causalFence + fence : fence;
		List<Integer> held = this.statements.query(statement, parameters, (rs, row) -> rs.getInt(1));
		return held.size() == 1 && held.get(0) == 1;
	}

	/**
	 * Run work in a new transaction. Not a TransactionTemplate: when the connection is
	 * gone (the network broke, or the server dropped the session of a holder frozen
	 * mid-transaction), a failed rollback must neither replace the work's own exception
	 * (typically the NotLeaderException a stale holder must get) nor be logged as an
	 * error; the server rolls back anyway.
	 * @param <T> the result type
	 * @param transactionManager the transaction manager
	 * @param work the work
	 * @return the work's result
	 */
	static <T extends @Nullable Object> T inTransaction(PlatformTransactionManager transactionManager,
			Supplier<T> work) {
		TransactionStatus status = transactionManager.getTransaction(TransactionDefinition.withDefaults());
		T result;
		try {
			result = work.get();
		}
		catch (Throwable ex) {
			try {
				transactionManager.rollback(status);
			}
			catch (RuntimeException rollbackFailure) {
				ex.addSuppressed(rollbackFailure);
			}
			throw ex;
		}
		transactionManager.commit(status);
		return result;
	}

	/**
	 * The fenced transaction's connection while the fence limits it: a network timeout of
	 * the hold limit, so that the job's thread does not wait for a half-open connection
	 * until the operating system gives up (Connector/J's socket timeout is infinite by
	 * default), and on MySQL the session's {@code wait_timeout} and
	 * {@code net_write_timeout} unless a session-limited {@link FencedConnection} sets
	 * and undoes them in its begin and commit. Both are undone once the transaction has
	 * ended, so that a holder frozen between the undo and the commit cannot hold the
	 * fence without a limit; without transaction synchronization, when the callback
	 * returns.
	 */
	private static final class FencedSession implements TransactionSynchronization {

		private final Connection connection;

		/** Network timeout to restore; negative if the driver has none. */
		private final int networkTimeout;

		private final @Nullable String restoreStatement;

		private final boolean synchronizedWithTransaction;

		private boolean restored;

		private FencedSession(Connection connection, int networkTimeout, @Nullable String restoreStatement,
				boolean synchronizedWithTransaction) {
			this.connection = connection;
			this.networkTimeout = networkTimeout;
			this.restoreStatement = restoreStatement;
			this.synchronizedWithTransaction = synchronizedWithTransaction;
		}

		/**
		 * Limit the fenced connection's client-side waits to the hold limit; a
		 * client-side setting on the drivers that support it, so it sends no statement.
		 * @param connection the fenced transaction's connection
		 * @param holdLimit the hold limit
		 * @param restoreStatement what undoes the fence statement's session limit, or
		 * {@code null}
		 * @return the limited session
		 */
		static FencedSession limit(Connection connection, Duration holdLimit, @Nullable String restoreStatement)
				throws SQLException {
			int previous;
			try {
				previous = connection.getNetworkTimeout();
				connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, holdLimit.toMillis()));
			}
			catch (SQLFeatureNotSupportedException | AbstractMethodError ex) {
				previous = -1;
			}
			boolean synchronizedWithTransaction = TransactionSynchronizationManager.isSynchronizationActive();
			FencedSession session = new FencedSession(connection, previous, restoreStatement,
					synchronizedWithTransaction);
			if (synchronizedWithTransaction) {
				TransactionSynchronizationManager.registerSynchronization(session);
			}
			return session;
		}

		void restoreUnlessSynchronized() {
			if (!this.synchronizedWithTransaction) {
				restore();
			}
		}

		@Override
		public void afterCompletion(int status) {
			restore();
		}

		private void restore() {
			if (this.restored) {
				return;
			}
			this.restored = true;
			try {
				if (this.restoreStatement != null) {
					try (Statement statement = this.connection.createStatement()) {
						statement.execute(this.restoreStatement);
					}
				}
				if (this.networkTimeout >= 0) {
					this.connection.setNetworkTimeout(Runnable::run, this.networkTimeout);
				}
			}
			catch (SQLException | RuntimeException ex) {
				// Usually the connection is broken already (the server dropped the
				// session of a stalled holder). Otherwise it keeps the fence's limits:
				// keep it out of the pool rather than let other work inherit them.
				try {
					this.connection.abort(Runnable::run);
				}
				catch (SQLException | RuntimeException abortFailure) {
					// closed anyway
				}
			}
		}

	}

}
