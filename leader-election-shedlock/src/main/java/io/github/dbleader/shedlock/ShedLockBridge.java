package io.github.dbleader.shedlock;

import java.math.BigDecimal;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.time.Instant;
import java.util.Calendar;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The migration bridge from ShedLock's {@code JdbcTemplateLockProvider}: during a rolling
 * deploy, {@link ClusterLockProvider} takes ShedLock's own row of each lock too, the way
 * the old nodes take it, so that an old node and a new node never run the same trigger.
 *
 * <p>
 * A row is taken as ShedLock takes it (inserted, or updated where its {@code lock_until}
 * has passed), extended where this node still holds it, and released as ShedLock releases
 * it ({@code lock_until} = the later of now and {@code lockAtLeastFor} after the
 * acquisition), each in a transaction of its own on the data source given, never in the
 * caller's. Times come from where the old nodes take them ({@link ShedLockTable}): the
 * database's clock expression ShedLock uses, or ShedLock's {@link ClockProvider} (the
 * node's clock) written in the old nodes' time zone. The row's holder ({@code locked_by})
 * is this node's id.
 *
 * <p>
 * While this node holds a lock's row, it does not try that lock again (ShedLock's release
 * matches the holder only, so a second acquisition of the row by the same node would be
 * released by the first one's end).
 *
 * <p>
 * A statement that fails counts as not done: a take is then skipped, an extension counts
 * as lost, and a release leaves the row to expire at its {@code lock_until}. The first
 * failure after a success is logged at WARN with its cause.
 */
public class ShedLockBridge {

	private static final Logger logger = LoggerFactory.getLogger(ShedLockBridge.class);

	private final NamedParameterJdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final ShedLockTable table;

	private final String lockedBy;

	/** Chosen at the first statement, from the database that answers. */
	private volatile @Nullable ShedLockStatements statements;

	/**
	 * Rows known to exist: their take is one update, as ShedLock's is after the first.
	 */
	private final Set<String> existing = ConcurrentHashMap.newKeySet();

	/** Rows this node holds. */
	private final Set<String> held = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean failing = new AtomicBoolean();

	/**
	 * Create a bridge.
	 * @param dataSource the data source the old nodes' ShedLock provider uses
	 * @param table ShedLock's table, its columns and its time
	 * @param lockedBy this node's id, written as the holder of the rows it takes; unique
	 * among the nodes (at most 255 characters, ShedLock's {@code locked_by} column)
	 * @param statementTimeout limit of every statement
	 */
	public ShedLockBridge(DataSource dataSource, ShedLockTable table, String lockedBy, Duration statementTimeout) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.table = Objects.requireNonNull(table, "table must not be null");
		this.lockedBy = Objects.requireNonNull(lockedBy, "lockedBy must not be null");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.setQueryTimeout((int) Math.max(1, (statementTimeout.toMillis() + 999) / 1000));
		this.jdbc = new NamedParameterJdbcTemplate(jdbc);
		// As ShedLock: a transaction of its own, so that a take never joins (nor waits
		// for the end of) a transaction of the caller's.
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
	}

	/**
	 * @return ShedLock's table
	 */
	public ShedLockTable getTable() {
		return this.table;
	}

	/**
	 * Check that ShedLock's table and its columns exist, so that a wrong table name stops
	 * the start-up instead of every run. A database that does not answer is logged and
	 * checked again at the first take.
	 * @throws IllegalStateException if the table or one of its columns is missing, or the
	 * table uses database time on a database the bridge has no clock expression for
	 */
	public void checkTable() {
		try {
			inOwnTransaction(() -> this.jdbc.getJdbcTemplate().queryForList(statements().check));
		}
		catch (BadSqlGrammarException ex) {
			throw new IllegalStateException("ShedLock's table " + describe() + " cannot be read: "
					+ ex.getMostSpecificCause().getMessage() + ". Set leader-election.shedlock.bridge.table-name (and"
					+ " the column names) to the table of the old nodes' JdbcTemplateLockProvider, or remove it once no"
					+ " old node runs", ex);
		}
		catch (DataAccessException ex) {
			logger.warn("Could not check ShedLock's table " + describe() + " at start-up; runs under the bridge are"
					+ " skipped until the database answers: " + ex);
		}
	}

	/**
	 * Take the lock's row, as ShedLock takes it, unless another node holds it or this
	 * node holds it already.
	 * @param configuration the lock's name and durations, as ShedLock gives them
	 * @return the acquisition, or empty if the row is held (or the take failed)
	 */
	Optional<Row> take(LockConfiguration configuration) {
		String name = configuration.getName();
		if (!this.held.add(name)) {
			return Optional.empty();
		}
		boolean taken = false;
		try {
			taken = run(() -> insert(configuration) || update(this.statements().take, configuration));
			return taken ? Optional.of(new Row(name)) : Optional.empty();
		}
		finally {
			if (!taken) {
				this.held.remove(name);
			}
		}
	}

	private boolean insert(LockConfiguration configuration) {
		String insert = statements().insert;
		if (insert == null || this.existing.contains(configuration.getName())) {
			return false;
		}
		boolean inserted;
		try {
			inserted = update(insert, configuration);
		}
		catch (DuplicateKeyException ex) {
			inserted = false;
		}
		// Only once the database answered: a row whose insert failed may not exist.
		this.existing.add(configuration.getName());
		return inserted;
	}

	private boolean update(String sql, LockConfiguration configuration) {
		try {
			return inOwnTransaction(() -> this.jdbc.update(sql, parameters(configuration))) > 0;
		}
		catch (ConcurrencyFailureException | TransactionSystemException ex) {
			// As ShedLock: a conflict with another node's take, which won.
			logger.debug("Take of ShedLock's row '" + configuration.getName() + "' conflicted: " + ex);
			return false;
		}
	}

	private <T> T inOwnTransaction(Supplier<T> statements) {
		return Objects.requireNonNull(this.transactions.execute((status) -> statements.get()));
	}

	/**
	 * Run statements; a failure counts as nothing done, and the first after a success is
	 * logged at WARN.
	 */
	private boolean run(Supplier<Boolean> statements) {
		try {
			boolean done = statements.get();
			if (this.failing.compareAndSet(true, false)) {
				logger.info("ShedLock's table " + describe() + " answers again");
			}
			return done;
		}
		catch (RuntimeException ex) {
			if (this.failing.compareAndSet(false, true)) {
				logger.warn("A statement on ShedLock's table " + describe() + " failed; runs are skipped, and rows held"
						+ " expire at their lock_until, until it answers: " + ex, ex);
			}
			else {
				logger.debug("A statement on ShedLock's table " + describe() + " failed again: " + ex);
			}
			return false;
		}
	}

	private ShedLockStatements statements() {
		ShedLockStatements statements = this.statements;
		if (statements == null) {
			String product = inOwnTransaction(
					() -> this.jdbc.getJdbcTemplate().execute((ConnectionCallback<String>) (connection) -> {
						DatabaseMetaData metaData = connection.getMetaData();
						return metaData.getDatabaseProductName();
					}));
			statements = ShedLockStatements.of(this.table, product);
			this.statements = statements;
		}
		return statements;
	}

	/** The parameters of every statement, as ShedLock computes them. */
	private Map<String, Object> parameters(LockConfiguration configuration) {
		Map<String, Object> parameters = new HashMap<>();
		parameters.put("name", configuration.getName());
		parameters.put("lockedBy", this.lockedBy);
		if (this.table.useDbTime()) {
			parameters.put("atMostForMicros", configuration.getLockAtMostFor().toNanos() / 1_000);
			parameters.put("atLeastForMicros", configuration.getLockAtLeastFor().toNanos() / 1_000);
			parameters.put("atMostForSeconds", seconds(configuration.getLockAtMostFor()));
			parameters.put("atLeastForSeconds", seconds(configuration.getLockAtLeastFor()));
		}
		else {
			parameters.put("lockUntil", timestamp(configuration.getLockAtMostUntil()));
			parameters.put("now", timestamp(ClockProvider.now()));
			parameters.put("unlockTime", timestamp(configuration.getUnlockTime()));
		}
		return parameters;
	}

	private static BigDecimal seconds(Duration duration) {
		return BigDecimal.valueOf(duration.toMillis()).scaleByPowerOfTen(-3);
	}

	/**
	 * A time in the old nodes' time zone, in milliseconds, as ShedLock binds it (a
	 * {@code Calendar} that Spring passes to {@code setTimestamp}).
	 */
	private Calendar timestamp(Instant time) {
		TimeZone zone = this.table.timeZone();
		Calendar calendar = Calendar.getInstance((zone != null) ? zone : TimeZone.getDefault());
		calendar.setTime(Date.from(time));
		return calendar;
	}

	private String describe() {
		return "'" + this.table.tableName() + "'";
	}

	@Override
	public String toString() {
		return "ShedLockBridge[" + this.table.tableName() + ", node=" + this.lockedBy + "]";
	}

	/**
	 * This node's acquisition of a lock's row; it ends once, by a release, a give-back or
	 * a lost extension.
	 */
	final class Row {

		private final String name;

		private final AtomicBoolean ended = new AtomicBoolean();

		private Row(String name) {
			this.name = name;
		}

		/**
		 * Extend the row as ShedLock extends it: {@code lockAtMostFor} from now, if this
		 * node still holds it and it has not expired. If not, the acquisition ends.
		 * @param configuration the extension's durations
		 * @return whether the row was extended
		 */
		boolean extend(LockConfiguration configuration) {
			boolean extended = run(() -> update(statements().extend, configuration));
			if (!extended) {
				end();
			}
			return extended;
		}

		/**
		 * Release the row as ShedLock releases it: it expires at the later of now and
		 * {@code lockAtLeastFor} after its acquisition.
		 * @param configuration the durations of the acquisition or of its last extension
		 */
		void unlock(LockConfiguration configuration) {
			if (!this.ended.get()) {
				run(() -> update(statements().unlock, configuration));
				end();
			}
		}

		/** Release the row at once, for a run that did not start. */
		void giveBack() {
			unlock(new LockConfiguration(ClockProvider.now(), this.name, Duration.ofMillis(1), Duration.ZERO));
		}

		private void end() {
			if (this.ended.compareAndSet(false, true)) {
				ShedLockBridge.this.held.remove(this.name);
			}
		}

		@Override
		public String toString() {
			return "ShedLockBridge.Row[" + this.name + "]";
		}

	}

}
