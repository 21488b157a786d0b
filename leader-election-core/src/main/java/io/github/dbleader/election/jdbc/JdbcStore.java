package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Where the election's statements go and how: the election's data source with the
 * statement timeout as query timeout and network timeout, transactions on it for changes
 * of holder, the application's transactions for fenced work, the tables, and the
 * statements for the platform and the kind of server that answers
 * ({@link LeaseStatements}, with the cluster locks' {@link LockStatements}), chosen
 * lazily: the platform when a repository first needs it (so a platform that only the
 * database can tell is asked for when the database answers, and asked again after a
 * failure), the kind of server at the first statement whose text depends on it. The
 * partition pins' statements ({@link PinStatements}) need neither. The repositories of
 * leases ({@link JdbcLeaseRepository}), of cluster locks ({@link JdbcLockRepository}) and
 * of partition pins ({@link JdbcPartitionPins}) are each built on a store.
 */
public final class JdbcStore {

	private static final Logger logger = LoggerFactory.getLogger(JdbcStore.class);

	private final JdbcTemplate jdbc;

	/**
	 * The follower's view on a MariaDB Galera node: a causal read, then, if it waited too
	 * long, a plain read of the node's own data, each with half the statement timeout.
	 */
	private final JdbcTemplate causalOrLocalJdbc;

	/**
	 * Transactions on the election's data source, for a change of holder and its fence
	 * row.
	 */
	private final PlatformTransactionManager transactions;

	private final PlatformTransactionManager applicationTransactions;

	private final DataSource applicationDataSource;

	private final Supplier<SqlDialect> dialectSupplier;

	private final LeaseTables tables;

	private final Duration statementTimeout;

	private volatile @Nullable SqlDialect dialect;

	/**
	 * The statements for one server of the platform; {@code null} before the platform is
	 * known.
	 */
	private volatile @Nullable LeaseStatements singleServer;

	/** The statements for the server that answers; {@code null} before it was asked. */
	private volatile @Nullable LeaseStatements answering;

	private volatile @Nullable FencedTransactionTemplate fencedTransactions;

	/** The pins' statements, the same on every platform. */
	private final PinStatements pins;

	/**
	 * Create a store.
	 * @param electionDataSource data source for the election's statements
	 * @param transactionManager the application's transaction manager for fenced work;
	 * must manage {@code applicationDataSource}
	 * @param applicationDataSource the data source fenced work writes to
	 * @param dialect the platform, asked for when first needed and until it answers; it
	 * may throw while the database cannot tell
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcStore(DataSource electionDataSource, PlatformTransactionManager transactionManager,
			DataSource applicationDataSource, Supplier<SqlDialect> dialect, LeaseTables tables,
			Duration statementTimeout) {
		Objects.requireNonNull(electionDataSource, "electionDataSource must not be null");
		this.statementTimeout = Objects.requireNonNull(statementTimeout, "statementTimeout must not be null");
		this.dialectSupplier = Objects.requireNonNull(dialect, "dialect must not be null");
		this.applicationTransactions = Objects.requireNonNull(transactionManager,
				"transactionManager must not be null");
		this.applicationDataSource = Objects.requireNonNull(applicationDataSource,
				"applicationDataSource must not be null");
		this.tables = Objects.requireNonNull(tables, "tables must not be null");
		this.jdbc = NetworkTimeoutDataSource.jdbcTemplate(electionDataSource, statementTimeout);
		// A causal read that waits is not interrupted by the server (neither
		// max_statement_time
		// nor KILL stop a wsrep_sync_wait): only the client's socket timeout bounds it.
		this.causalOrLocalJdbc = new JdbcTemplate(
				new NetworkTimeoutDataSource(electionDataSource, statementTimeout.dividedBy(2)));
		this.causalOrLocalJdbc.setQueryTimeout(this.jdbc.getQueryTimeout());
		this.transactions = new DataSourceTransactionManager(Objects.requireNonNull(this.jdbc.getDataSource()));
		this.pins = new PinStatements(tables);
	}

	/**
	 * Create a store on a known platform.
	 * @param electionDataSource data source for the election's statements
	 * @param transactionManager the application's transaction manager for fenced work;
	 * must manage {@code applicationDataSource}
	 * @param applicationDataSource the data source fenced work writes to
	 * @param dialect the platform
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcStore(DataSource electionDataSource, PlatformTransactionManager transactionManager,
			DataSource applicationDataSource, SqlDialect dialect, LeaseTables tables, Duration statementTimeout) {
		this(electionDataSource, transactionManager, applicationDataSource, known(dialect), tables, statementTimeout);
	}

	/**
	 * Create a store whose election statements and fenced work share one data source.
	 * @param dataSource the data source
	 * @param dialect the platform
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcStore(DataSource dataSource, SqlDialect dialect, LeaseTables tables, Duration statementTimeout) {
		this(dataSource, known(dialect), tables, statementTimeout);
	}

	/**
	 * Create a store whose election statements and fenced work share one data source, on
	 * a platform asked for when first needed.
	 * @param dataSource the data source
	 * @param dialect the platform, asked for when first needed and until it answers; it
	 * may throw while the database cannot tell
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcStore(DataSource dataSource, Supplier<SqlDialect> dialect, LeaseTables tables,
			Duration statementTimeout) {
		this(dataSource, new DataSourceTransactionManager(dataSource), dataSource, dialect, tables, statementTimeout);
	}

	private static Supplier<SqlDialect> known(SqlDialect dialect) {
		Objects.requireNonNull(dialect, "dialect must not be null");
		return () -> dialect;
	}

	/**
	 * The platform, asked for once it is first needed.
	 * @return the dialect
	 * @throws RuntimeException what the platform's supplier throws while the database
	 * cannot tell; the next call asks again
	 */
	public SqlDialect dialect() {
		SqlDialect dialect = this.dialect;
		if (dialect == null) {
			dialect = Objects.requireNonNull(this.dialectSupplier.get(), "dialect must not be null");
			this.dialect = dialect;
		}
		return dialect;
	}

	/**
	 * @return the table names
	 */
	public LeaseTables tables() {
		return this.tables;
	}

	/**
	 * @return the limit of every election statement
	 */
	public Duration statementTimeout() {
		return this.statementTimeout;
	}

	/**
	 * @return statements on the election's data source, with the statement timeout
	 */
	JdbcTemplate jdbc() {
		return this.jdbc;
	}

	/**
	 * @return statements on the election's data source with half the statement timeout,
	 * for causal reads
	 */
	JdbcTemplate causalOrLocalJdbc() {
		return this.causalOrLocalJdbc;
	}

	/**
	 * @return transactions on the election's data source
	 */
	PlatformTransactionManager transactions() {
		return this.transactions;
	}

	/**
	 * The statements for one server of the platform, without asking the server what kind
	 * it is: only for the statements that are the same on every kind (those that neither
	 * record nor compare the server's identity, nor read for a decision).
	 * @return the statements
	 */
	LeaseStatements platformStatements() {
		LeaseStatements statements = this.singleServer;
		if (statements == null) {
			statements = new LeaseStatements(dialect(), false, this.tables, this.statementTimeout);
			this.singleServer = statements;
		}
		return statements;
	}

	/**
	 * The statements for the server that the election's data source reaches, asked of it
	 * once: a MariaDB Galera node gets the cluster's.
	 * @return the statements
	 */
	LeaseStatements serverStatements() {
		LeaseStatements statements = this.answering;
		if (statements == null) {
			LeaseStatements singleServer = platformStatements();
			SqlDialect dialect = singleServer.dialect;
			LeaseStatements galeraCluster = LeaseStatements.galeraCluster(dialect)
					? new LeaseStatements(dialect, true, this.tables, this.statementTimeout) : null;
			statements = ServerKind.choose(this.jdbc, dialect, singleServer, galeraCluster);
			if (statements == galeraCluster) {
				logger.info("Election statements on a MariaDB Galera cluster: the server identity is the cluster's"
						+ " state UUID, and the reads that decide wait for the cluster's earlier commits");
			}
			this.answering = statements;
		}
		return statements;
	}

	/**
	 * @return the partition pins' statements, which need neither the platform nor the
	 * kind of server
	 */
	PinStatements pinStatements() {
		return this.pins;
	}

	/**
	 * Run a statement that lists keys once per chunk of them.
	 * @param statement the statement, whose one slot lists the keys
	 * @param leading the parameters before the keys
	 * @param keys the keys
	 * @param chunkSize most keys per statement
	 * @return the rows changed, summed over the chunks
	 */
	int updateListed(SqlTemplate statement, List<Object> leading, List<?> keys, int chunkSize) {
		int changed = 0;
		for (int from = 0; from < keys.size(); from += chunkSize) {
			List<?> chunk = keys.subList(from, Math.min(keys.size(), from + chunkSize));
			List<Object> args = new ArrayList<>(leading.size() + chunk.size());
			args.addAll(leading);
			args.addAll(chunk);
			changed += this.jdbc.update(statement.render(chunk.size()), args.toArray());
		}
		return changed;
	}

	/**
	 * @return runs fenced work in the application's transactions
	 */
	FencedTransactionTemplate fencedTransactions() {
		FencedTransactionTemplate fencedTransactions = this.fencedTransactions;
		if (fencedTransactions == null) {
			fencedTransactions = new FencedTransactionTemplate(this.applicationTransactions, this.applicationDataSource,
					dialect(), this.tables);
			this.fencedTransactions = fencedTransactions;
		}
		return fencedTransactions;
	}

}
