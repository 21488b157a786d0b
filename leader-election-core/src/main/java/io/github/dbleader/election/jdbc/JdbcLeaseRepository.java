package io.github.dbleader.election.jdbc;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;

import javax.sql.DataSource;

import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.FenceNotConfirmedException;
import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.LeaseReads;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.lock.ClusterLocks;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import static io.github.dbleader.election.jdbc.FencedTransactionTemplate.inTransaction;

/**
 * {@link LeaseRepository} on a relational database through {@link JdbcTemplate}. All time
 * arithmetic happens in SQL on the database clock, in epoch milliseconds (UTC). Every
 * election statement has a query timeout and a network timeout, both from the statement
 * timeout.
 *
 * <p>Two data sources: the election's statements go to {@code electionDataSource} (ideally
 * a tiny pool of its own, so business load cannot starve renewals); fenced work runs on
 * the application's transaction manager, so that the application's own {@code JdbcTemplate}
 * joins the fenced transaction.
 *
 * <p>Four tables ({@link LeaseTables}): the lease row, written by every change of holder; the
 * candidates (which node takes part in which election); the nodes, one row per node id that
 * its heartbeat refreshes; and the fence row, a copy of the lease's holder and term that every change of
 * holder updates in the same transaction as the lease row. Fenced transactions lock the
 * fence row in share mode, so a change of holder waits for them (I5) while renewals do not
 * (I9).
 *
 * <p>Cluster locks are rows of the lease table too, named with the prefix
 * {@value ClusterLocks#KEY_PREFIX}; their statements are {@link JdbcLockRepository}'s.
 * Purges leave those rows alone.
 *
 * <p>On a MariaDB Galera node (asked once, at the first statement), the statements that
 * record or compare the server's identity use the cluster's instead, so that a pool that
 * reconnects to another node of the cluster is no failover, and the reads the election
 * acts on are causal ({@link SqlDialect#causalRead()}); the heartbeat's read of the leases
 * answers from the node's own data when its causal read waits too long ({@link #readAll}).
 */
public class JdbcLeaseRepository implements LeaseRepository {

	/**
	 * Most parameters of the keys one statement lists, below PostgreSQL's limit of 32767
	 * with room for the others (a claim of earlier candidacies lists that many names).
	 */
	static final int MAX_PARAMETERS_PER_STATEMENT = 30_000;

	/** Most node rows, and most leases, one purge deletes. */
	static final int PURGED_PER_ROUND = 100;

	/**
	 * Most lease rows one purge looks through for unused ones: the next slice in key order,
	 * so that the search stays far below the statement timeout at any number of elections.
	 */
	static final int PURGE_SLICE = 1_000;

	/** Most elections one join statement inserts. */
	static final int JOINS_PER_STATEMENT = 1_000;

	private static final Logger logger = LoggerFactory.getLogger(JdbcLeaseRepository.class);

	/**
	 * MySQL error codes of a statement that waited too long: lock wait timeout (also a
	 * causal wait past {@code repl.causal_read_timeout}), interrupted, {@code max_statement_time}.
	 */
	private static final Set<Integer> WAITED_TOO_LONG = Set.of(1205, 1317, 1969);

	private final JdbcTemplate jdbc;

	/**
	 * The follower's view on a MariaDB Galera node: a causal read, then, if it waited too
	 * long, a plain read of the node's own data, each with half the statement timeout.
	 */
	private final JdbcTemplate causalOrLocalJdbc;

	/** Whether the last causal read of the follower's view waited too long. */
	private volatile boolean causalReadsFailing;

	/** Transactions on the election's data source, for a change of holder and its fence row. */
	private final PlatformTransactionManager holderChanges;

	private final SqlDialect dialect;

	/** The statements for one server. */
	private final ServerStatements singleServer;

	/** The statements for a MariaDB Galera cluster; {@code null} where the platform has none. */
	private final @Nullable ServerStatements galeraCluster;

	/**
	 * The statements for the server the election's data source reaches, chosen at the first
	 * election statement; {@code null} before.
	 */
	private volatile @Nullable ServerStatements statements;

	private final String yield;

	/** A batched yield's assignments. */
	private final String yielded;

	/** A batched take-over's conditions: the single-row take-over's, with (election, version) pairs. */
	private final String takeable;

	/** A batched take-over's conditions for leases that were seen without a session. */
	private final String takeableWithoutSession;

	/**
	 * A batched take-over's conditions for leases whose session was seen ended, at the
	 * version that ends the conditions.
	 */
	private final String takeableFromEndedSession;

	/** A batched change's conditions of the holder: this node, with (election, term) pairs. */
	private final String heldWithTerm;

	private final String requestHandover;

	private final String requestReelection;

	/** Records hand-over requests of rows this node holds, up to the list of their names. */
	private final String requestHandoverAll;

	private final String refreshNode;

	/**
	 * Writes the row of a lease holder's session that has run out at the version a follower
	 * watched, in the transaction of the take-over, so that a refresh of that session and
	 * the take-over are ordered.
	 */
	private final String takeSession;

	/**
	 * The instance whose heartbeat holds each node id's row, as this repository last sent
	 * it: the session that the leases a node acquires live on.
	 */
	private final Map<String, String> sessions = new ConcurrentHashMap<>();

	/** Each node's view of its elections' leases, by node id and instance id ({@link #readAll}). */
	private final Map<List<String>, LeaseView> views = new ConcurrentHashMap<>();

	/** Reads listed lease rows by key in a view's read, up to the list. */
	private final String viewByKey;

	private volatile int readInFullUpTo = LeaseView.READ_IN_FULL_UP_TO;

	private volatile int rescannedPerRound = LeaseView.RESCANNED_PER_ROUND;

	private volatile int page = LeaseView.PAGE;

	private final String inheritNode;

	private final String insertNode;

	/** Candidacies of this node id that earlier instances left. */
	private final String earlierCandidacies;

	/** Claims listed candidacies of this node id for this instance. */
	private final String claimCandidacies;

	/** Inserts one candidates row; parameters: node, instance, election, node, instance. */
	private final String insertCandidate;

	private final String removeCandidate;

	/**
	 * Inserts candidates rows, up to the elections' list ({@code SELECT ? AS joined UNION ALL
	 * ...}), then {@link #joinedByThisInstance}.
	 */
	private final String joinAll;

	/** An election in {@link #joinAll}'s list. */
	private final String joinedElection;

	/** Closes {@link #joinAll}'s list of elections and ties the insert to the node's session. */
	private final String joinedByThisInstance;

	private final @Nullable String ignoreDuplicates;

	private final String removeCandidacies;

	/** This instance's candidacies, by election name. */
	private final String ownCandidacies;

	/** Deletes listed candidacies of this instance, up to the list of their names. */
	private final String leaveCandidacies;

	private final String removeNode;

	private final String staleNodes;

	/** Deletes one node row if it is still stale. */
	private final String purgeNode;

	/** Deletes the candidates rows of one node id. */
	private final String purgeCandidacies;

	/** The last key of the next slice of lease rows a purge looks through, if the table goes on. */
	private final String purgeSliceEnd;

	/** Unused leases in a slice of keys. */
	private final String unusedLeases;

	/** Unused leases from a key to the end of the table. */
	private final String unusedLeasesToTheEnd;

	/** Where the next purge's slice of lease rows starts, after this key. */
	private volatile String purgeFrom = "";

	/**
	 * The node rows the last purge found stale, with their versions: the next purge deletes
	 * those still at the same version. Only the heartbeat thread purges.
	 */
	private volatile Map<String, Long> staleAtLastPurge = Map.of();

	/** Deletes one lease if it is still unused. */
	private final String purgeLease;

	/** Deletes the fence row of one election. */
	private final String purgeFence;

	private final String updateFence;

	/**
	 * Makes the server end a single-row change's wait for the fence row after half the
	 * statement timeout, before the client's socket timeout does; {@code null} where the
	 * server ends it already.
	 */
	private final @Nullable String boundFenceWait;

	private final String insertFence;

	/** Inserts the fence row, or updates one left from an earlier lease of the same name. */
	private final String writeFence;

	/** The fence statement of the dialect, with named parameters. */
	private final String fence;

	private final String fenceView;

	/** Runs fenced work in the application's transactions. */
	private final FencedTransactionTemplate fencedTransactions;

	private final LeaseTables tables;

	/**
	 * Whether the tables may take names that differ only in case or accents for one (MySQL
	 * tables of an earlier snapshot): then a duplicate key in a creation may be such a name
	 * rather than a lease another node created first.
	 */
	private volatile boolean namesCompareInexactly;

	/** Reads the stored names that the database takes for the listed ones, up to the list. */
	private final String storedNames;

	/**
	 * The rows the database refused, each with why, as last reported: they go to the
	 * database on their own, so that they fail no statement of the others.
	 */
	private final Map<Row, String> refusedRows = new ConcurrentHashMap<>();

	/**
	 * Create a repository.
	 * @param electionDataSource data source for the election's statements
	 * @param transactionManager the application's transaction manager for fenced work; must
	 * manage {@code applicationDataSource}
	 * @param applicationDataSource the data source fenced work writes to
	 * @param dialect SQL dialect
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcLeaseRepository(DataSource electionDataSource, PlatformTransactionManager transactionManager,
			DataSource applicationDataSource, SqlDialect dialect, LeaseTables tables, Duration statementTimeout) {
		Objects.requireNonNull(electionDataSource, "electionDataSource must not be null");
		Objects.requireNonNull(statementTimeout, "statementTimeout must not be null");
		this.dialect = Objects.requireNonNull(dialect, "dialect must not be null");
		this.jdbc = NetworkTimeoutDataSource.jdbcTemplate(electionDataSource, statementTimeout);
		// A causal read that waits is not interrupted by the server (neither max_statement_time
		// nor KILL stop a wsrep_sync_wait): only the client's socket timeout bounds it.
		this.causalOrLocalJdbc = new JdbcTemplate(
				new NetworkTimeoutDataSource(electionDataSource, statementTimeout.dividedBy(2)));
		this.causalOrLocalJdbc.setQueryTimeout(this.jdbc.getQueryTimeout());
		this.holderChanges = new DataSourceTransactionManager(Objects.requireNonNull(this.jdbc.getDataSource()));
		this.fencedTransactions = new FencedTransactionTemplate(
				Objects.requireNonNull(transactionManager, "transactionManager must not be null"),
				applicationDataSource, dialect, tables);
		this.tables = tables;
		String lease = tables.leaseTable();
		String candidates = tables.candidateTable();
		String fence = tables.fenceTable();
		String now = dialect.now();
		this.storedNames = "SELECT election_name FROM " + lease + " WHERE election_name IN (";
		this.singleServer = ServerStatements.of(dialect, tables, dialect.serverIdentity(), "");
		String clusterIdentity = dialect.galeraIdentity();
		String causalRead = dialect.causalRead();
		this.galeraCluster = (clusterIdentity != null && causalRead != null)
				? ServerStatements.of(dialect, tables, clusterIdentity, causalRead) : null;
		String nodes = tables.nodesTable();
		this.viewByKey = LeaseRows.viewByKey(lease);
		this.yielded = "leader_id = NULL, version = version + 1, expires_at = " + now
				+ ", handover_to = NULL, reelection_requested = FALSE, yielded_by = ?, leader_instance = NULL, "
				+ LeaseRows.changed(now);
		this.yield = "UPDATE " + lease + " SET " + this.yielded + " WHERE election_name = ? AND leader_id = ? AND term = ?";
		String pairs = BatchedHolderChange.Change.PAIRS;
		String sessions = LeaseRows.sessions(dialect, nodes);
		this.takeable = " AND " + LeaseRows.takeable(now, "(election_name, version) IN (" + pairs + ")", sessions);
		this.takeableWithoutSession = this.takeable + " AND " + LeaseRows.noSession(sessions);
		this.takeableFromEndedSession = this.takeableWithoutSession + " AND " + LeaseRows.sessionEndedAt(sessions);
		this.heldWithTerm = " AND leader_id = ? AND (election_name, term) IN (" + pairs + ")";
		String changed = ", " + LeaseRows.changed(now);
		this.requestHandover = "UPDATE " + lease + " SET handover_to = ?, reelection_requested = FALSE,"
				+ " version = version + 1" + changed + " WHERE election_name = ?";
		this.requestHandoverAll = "UPDATE " + dialect.byKey(lease) + " SET handover_to = ?, reelection_requested = FALSE,"
				+ " version = version + 1" + changed + " WHERE leader_id = ? AND election_name IN (";
		this.requestReelection = "UPDATE " + lease + " SET reelection_requested = TRUE, handover_to = NULL,"
				+ " version = version + 1" + changed + " WHERE election_name = ? AND leader_id IS NOT NULL";
		// Three portable statements instead of an upsert: the row of another running
		// instance with the same node id must be left alone, and the caller must learn so.
		// Each write of the row moves the session on (version; so the row changes even on a
		// second heartbeat within one millisecond, and drivers that count changed rather than
		// matched rows, useAffectedRows, count it) and keeps it live for a lease from the
		// database's now. Not from the stored last_seen, which the refresh used to carry
		// forward (GREATEST(now, last_seen + 1)): after the database clock stepped back, that
		// kept a crashed node's session, its leases and its node id for as long as the step.
		this.refreshNode = "UPDATE " + nodes + " SET expires_at = " + now + " + ?, last_seen = " + now
				+ ", version = version + 1 WHERE node_id = ? AND instance_id = ?";
		// The earlier instance's session ends at its last version, which followers that watched
		// it keep watching (assigned first: MySQL assigns from left to right). Only once that
		// session has expired: never from a live one. And once last_seen is a lease old, for a
		// row that an earlier version refreshed without an expiry; that holds from the
		// session's expiry on, as a refresh sets the expiry no earlier than a lease after
		// last_seen (from the statement's now; on PostgreSQL from a later clock_timestamp(),
		// as it assigns in the columns' order), so the id may be taken over exactly when the
		// session counts expired.
		this.inheritNode = "UPDATE " + nodes + " SET previous_instance = instance_id, previous_version = version,"
				+ " instance_id = ?, first_seen = " + now + ", last_seen = " + now + ", version = version + 1,"
				+ " expires_at = " + now + " + ? WHERE node_id = ? AND expires_at <= " + now + " AND last_seen <= "
				+ now + " - ?";
		this.insertNode = "INSERT INTO " + nodes + " (node_id, instance_id, first_seen, last_seen, version, expires_at)"
				+ " VALUES (?, ?, " + now + ", " + now + ", 1, " + now + " + ?)";
		this.takeSession = "UPDATE " + nodes + " SET takeovers = takeovers + 1 WHERE node_id = ? AND version = ?"
				+ " AND expires_at <= " + now;
		// first_seen restarts too: a restarted process is a new member (partition groups let a
		// member settle before it gets partitions).
		// Found by a plain read, then claimed by key: an update that ranged over the node's
		// index entries locked the gaps around them, and nodes starting together, joining
		// their elections meanwhile, deadlocked on them (InnoDB).
		this.earlierCandidacies = "SELECT election_name FROM " + candidates + " WHERE node_id = ? AND instance_id <> ?";
		this.claimCandidacies = "UPDATE " + dialect.byKey(candidates) + " SET instance_id = ?, first_seen = " + now
				+ " WHERE node_id = ? AND instance_id <> ? AND election_name IN (";
		// Only while no other instance holds the node id: a join sent before another instance
		// took the id over, and applied after, would leave a row naming the earlier instance,
		// never live, that the current instance's joins leave as it is (simulator seed 6158094).
		String parameter = dialect.stringParameter();
		this.joinAll = "INSERT INTO " + candidates + " (election_name, node_id, instance_id, first_seen, last_seen)"
				+ " SELECT j.joined, " + parameter + ", " + parameter + ", " + now + ", " + now + " FROM (";
		this.joinedElection = "SELECT " + parameter + " AS joined";
		this.joinedByThisInstance = ") j WHERE NOT EXISTS (SELECT 1 FROM " + nodes
				+ " n WHERE n.node_id = ? AND n.instance_id <> ?)";
		this.insertCandidate = this.joinAll + this.joinedElection + this.joinedByThisInstance;
		this.removeCandidate = "DELETE FROM " + candidates
				+ " WHERE election_name = ? AND node_id = ? AND instance_id = ?";
		this.ignoreDuplicates = dialect.ignoreDuplicateKeys("election_name");
		this.removeCandidacies = "DELETE FROM " + candidates + " WHERE node_id = ? AND instance_id = ?";
		this.ownCandidacies = "SELECT election_name FROM " + candidates + " WHERE node_id = ? AND instance_id = ?";
		this.leaveCandidacies = "DELETE FROM " + candidates + " WHERE node_id = ? AND instance_id = ? AND election_name IN (";
		this.removeNode = "DELETE FROM " + nodes + " WHERE node_id = ? AND instance_id = ?";
		// Plain reads find what to purge; the deletes then reach each row by its key, with no
		// subquery: a delete that scanned, or whose anti-join the optimizer materialized,
		// would lock rows it does not delete and so queue behind fenced work (I9). Each row's
		// delete and its dependants' share a transaction, so that a node that comes back, or
		// creates the lease anew, waits for the purge and then writes its rows again.
		String stale = " < " + now + " - ?";
		String limit = " ORDER BY 1 LIMIT " + PURGED_PER_ROUND;
		// A node row is deleted at the second purge that finds it stale at the same version:
		// a live node moves its version on at least every half lease, however far the
		// database clock jumped forward (which makes every row look stale at once).
		this.staleNodes = "SELECT node_id, version FROM " + nodes + " WHERE last_seen" + stale + limit;
		this.purgeNode = "DELETE FROM " + nodes + " WHERE node_id = ? AND version = ? AND last_seen" + stale;
		this.purgeCandidacies = "DELETE FROM " + candidates + " WHERE node_id = ?";
		// Lock rows are never purged: a node takes a lock by updating the row it knows exists.
		// With sessions, almost every lease row's own expiry is old: a search by it alone would
		// read the whole table. A slice of keys at a time instead.
		this.purgeSliceEnd = "SELECT election_name FROM " + lease + " WHERE election_name > ? ORDER BY election_name"
				+ " LIMIT 1 OFFSET " + (PURGE_SLICE - 1);
		String unused = "SELECT election_name FROM " + lease + " l WHERE l.election_name > ? AND expires_at" + stale
				+ " AND NOT EXISTS (SELECT 1 FROM " + candidates + " c WHERE c.election_name = l.election_name)"
				+ " AND l.election_name NOT LIKE '" + ClusterLocks.KEY_PREFIX + "%'";
		this.unusedLeases = unused + " AND l.election_name <= ?" + limit;
		this.unusedLeasesToTheEnd = unused + limit;
		this.purgeLease = "DELETE FROM " + lease + " WHERE election_name = ? AND expires_at" + stale;
		this.purgeFence = "DELETE FROM " + fence + " WHERE election_name = ?";
		// The fence row copies the holder from the lease row, in the transaction that changed it.
		String holder = " FROM " + lease + " WHERE election_name = ?)";
		this.updateFence = "UPDATE " + fence + " SET leader_id = (SELECT leader_id" + holder + ", term = (SELECT term"
				+ holder + " WHERE election_name = ?";
		this.insertFence = "INSERT INTO " + fence + " (election_name, leader_id, term) SELECT election_name, "
				+ "leader_id, term FROM " + lease + " WHERE election_name = ?";
		this.writeFence = dialect.writeFence(fence, lease);
		this.boundFenceWait = dialect.boundFenceWait(fence, statementTimeout.dividedBy(2));
		this.fence = dialect.fence(fence, lease, nodes);
		// Only after the fence refused: why, for the exception's message.
		this.fenceView = "SELECT f.leader_id, f.term, (SELECT CASE WHEN " + dialect.live("l", nodes)
				+ " THEN 1 ELSE 0 END FROM " + lease + " l WHERE l.election_name = f.election_name"
				+ " AND l.leader_id = f.leader_id AND l.term = f.term) AS valid FROM " + fence + " f WHERE f.election_name = ?";
	}

	/**
	 * Create a repository whose election statements and fenced work share one data source.
	 * @param dataSource the data source
	 * @param dialect SQL dialect
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcLeaseRepository(DataSource dataSource, SqlDialect dialect, LeaseTables tables,
			Duration statementTimeout) {
		this(dataSource, new DataSourceTransactionManager(dataSource), dataSource, dialect, tables, statementTimeout);
	}

	/** @return the dialect in use */
	public SqlDialect dialect() {
		return this.dialect;
	}

	/**
	 * The statements for the server that the election's data source reaches, asked of it
	 * once: a MariaDB Galera node gets the cluster's.
	 */
	private ServerStatements statements() {
		ServerStatements statements = this.statements;
		if (statements == null) {
			statements = ServerKind.choose(this.jdbc, this.dialect, this.singleServer, this.galeraCluster);
			if (statements == this.galeraCluster) {
				logger.info("Election statements on a MariaDB Galera cluster: the server identity is the cluster's"
						+ " state UUID, and the reads that decide wait for the cluster's earlier commits");
			}
			if (this.dialect == SqlDialect.MYSQL) {
				checkNamesCompareExactly();
			}
			this.statements = statements;
		}
		return statements;
	}

	/**
	 * Warn, once, where tables created before the script made names compare exactly take
	 * names that differ only in case or accents for one.
	 */
	private void checkNamesCompareExactly() {
		Map<String, List<String>> inexact;
		try {
			inexact = LeaseSchema.inexactNameColumns(this.jdbc, this.tables);
		}
		catch (DataAccessException ex) {
			this.namesCompareInexactly = true;
			logger.warn("Could not check that the leader election tables compare names exactly: {}", ex.toString());
			return;
		}
		if (!inexact.isEmpty()) {
			this.namesCompareInexactly = true;
			List<String> columns = new ArrayList<>();
			inexact.forEach((table, inexactColumns) -> inexactColumns
				.forEach((column) -> columns.add(table + "." + column)));
			logger.warn("The leader election tables take names that differ only in case or accents for one ({}):"
					+ " such elections share one lease row, and all but one of them get no leader; such node ids"
					+ " are taken for one node. Make them compare exactly (the script creates them so): {}",
					String.join(", ", columns), exactNamesStatements(inexact.keySet()));
		}
	}

	/** The statements that make the tables compare names exactly, for a message. */
	private static String exactNamesStatements(Collection<String> tables) {
		return String.join("; ", tables.stream().map(LeaseSchema::exactNames).toList());
	}

	@Override
	public Optional<LeaseState> find(String election) {
		return OutsideCallerTransaction.run(() -> this.jdbc
			.query(statements().find(), (rs, row) -> LeaseRows.mapElection(rs), election)
			.stream()
			.findFirst());
	}

	@Override
	public boolean create(String election, String nodeId, Duration lease) {
		changing(List.of(election));
		try {
			return inTransaction(this.holderChanges, () -> {
				this.jdbc.update(statements().create(), election, nodeId, lease.toMillis(), this.sessions.get(nodeId));
				// Written at once, not updated first: an update that finds no row locks the gap
				// where the row would go, and two nodes creating elections at the same time
				// deadlock on each other's gap (InnoDB).
				this.jdbc.update(this.writeFence, election);
				return true;
			});
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	/**
	 * Create the listed leases in one transaction per chunk of
	 * {@value LeaseRows#MAX_ROWS_PER_UPDATE}, in key order, with their fence rows
	 * ({@link BatchedHolderChange#create}). A chunk of which another node created a lease
	 * first is rolled back whole, as the single-row create is, and left for the next round's
	 * read: a row that existed before this call is never taken for one it created. A chunk
	 * that fails for a row the database refuses otherwise (a name that the table cannot
	 * hold, or takes for another's) is halved until that row is alone: the others are
	 * created, and the refused one is reported once at WARN and sent on its own
	 * from then on.
	 */
	@Override
	public List<LeaseState> createAll(String nodeId, List<String> elections, Duration lease) {
		List<String> sorted = elections.stream().sorted().distinct().toList();
		changing(sorted);
		List<String> batched = new ArrayList<>(sorted.size());
		List<String> alone = new ArrayList<>();
		sorted.forEach((election) -> (this.refusedRows.containsKey(new Row(this.tables.leaseTable(), election)) ? alone
				: batched).add(election));
		List<LeaseState> created = new ArrayList<>();
		for (int from = 0; from < batched.size(); from += LeaseRows.MAX_ROWS_PER_UPDATE) {
			created.addAll(create(nodeId,
					batched.subList(from, Math.min(batched.size(), from + LeaseRows.MAX_ROWS_PER_UPDATE)),
					lease.toMillis()));
		}
		alone.forEach((election) -> created.addAll(create(nodeId, List.of(election), lease.toMillis())));
		return created;
	}

	/** Create one chunk of leases, or the part of it that the database does not refuse. */
	private List<LeaseState> create(String nodeId, List<String> chunk, long leaseMillis) {
		try {
			List<LeaseState> created = inTransaction(this.holderChanges, () -> statements().batch()
				.create(this.jdbc, nodeId, this.sessions.get(nodeId), chunk, leaseMillis));
			accepted(this.tables.leaseTable(), chunk);
			return created;
		}
		catch (PessimisticLockingFailureException ex) {
			// Rolled back: none of the chunk's leases created. A deadlock, or a certification
			// conflict on Galera: two other nodes raced for a lease that a third one's
			// rolled-back batch had inserted.
			return List.of();
		}
		catch (DataAccessException ex) {
			if (!refusesRow(ex)) {
				throw ex;
			}
			if (ex instanceof DuplicateKeyException) {
				if (!this.namesCompareInexactly) {
					// Another node created one of them first (or, on H2, is creating it).
					return List.of();
				}
				// Tables that take names differing only in case for one: a creation first, or such
				// a name, of this chunk or of one created before?
				List<String> stored = storedNames(chunk);
				if (chunk.stream().anyMatch(stored::contains)) {
					return List.of();
				}
				if (chunk.size() == 1) {
					refused(new Row(this.tables.leaseTable(), chunk.get(0)), ex, stored);
					return List.of();
				}
			}
			else if (chunk.size() == 1) {
				refused(new Row(this.tables.leaseTable(), chunk.get(0)), ex, List.of());
				return List.of();
			}
			List<LeaseState> created = new ArrayList<>(create(nodeId, chunk.subList(0, chunk.size() / 2), leaseMillis));
			created.addAll(create(nodeId, chunk.subList(chunk.size() / 2, chunk.size()), leaseMillis));
			return created;
		}
	}

	/**
	 * The names stored for the listed ones, as the database finds them: the same, or
	 * another that its collation takes for one of them.
	 */
	private List<String> storedNames(List<String> elections) {
		return this.jdbc.queryForList(this.storedNames + "?" + ", ?".repeat(elections.size() - 1) + ")", String.class,
				elections.toArray());
	}

	/**
	 * Whether a statement failed for what one of its rows holds rather than for the state of
	 * the database: a duplicate key, a value the column cannot hold (SQLSTATE classes 22 and
	 * 23, or MySQL's 1366, an incorrect string value).
	 */
	static boolean refusesRow(Throwable ex) {
		if (ex instanceof DataIntegrityViolationException) {
			return true;
		}
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sqlException) {
				String state = sqlException.getSQLState();
				if ((state != null && (state.startsWith("22") || state.startsWith("23")))
						|| sqlException.getErrorCode() == 1366) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Report, once per cause, that the database refused an election's row: the election has
	 * no leader until it accepts it, and the others go on.
	 * @param row the row
	 * @param ex why
	 * @param stored the names stored that the database takes for the election's, none of
	 * them the same: read after a duplicate key
	 */
	private void refused(Row row, DataAccessException ex, List<String> stored) {
		boolean duplicate = ex instanceof DuplicateKeyException;
		if (duplicate && stored.isEmpty()) {
			// Another node created it, and deleted it since: the next round's read says.
			return;
		}
		String why = !duplicate ? String.valueOf(ex.getMostSpecificCause())
				: "the table takes it for " + stored.stream().map((name) -> "'" + name + "'").toList()
						+ ", which differs only in case or accents (its key's collation does not compare exactly; on"
						+ " MySQL and MariaDB: " + exactNamesStatements(this.tables.allTables()) + ")";
		if (!why.equals(this.refusedRows.put(row, why))) {
			logger.warn("Election '{}': the database refuses its row in {}, and the election gets no leader until it"
					+ " accepts it; the other elections go on: {}", row.election(), row.table(), why);
		}
	}

	/** Rows of a table were accepted: report those that had been refused. */
	private void accepted(String table, List<String> elections) {
		if (this.refusedRows.isEmpty()) {
			return;
		}
		for (String election : elections) {
			if (this.refusedRows.remove(new Row(table, election)) != null) {
				logger.info("Election '{}': the database accepts its row in {} now", election, table);
			}
		}
	}

	/**
	 * A row of an election in a table.
	 * @param table the table
	 * @param election the election
	 */
	private record Row(String table, String election) {
	}

	/**
	 * Read the leases of this instance's elections: the rows that changed since its last
	 * read and a few by key, joined with every node row, its session, read now
	 * ({@link LeaseView}), in one statement; whole where that is needed or as cheap. On
	 * MariaDB Galera a causal read; if it waits too long (the node lags, or the cluster stalls
	 * while it evicts a dead node), the node's own data instead, in the same statement
	 * timeout, and the view is read whole at the next causal read. A follower keeps watching
	 * the row that way (I3); a stale view costs nothing but a take-over that fails, as the
	 * take-over is conditional on the version it saw and Galera certifies it against every
	 * later write of the row.
	 */
	@Override
	public List<LeaseState> findAll(String nodeId, String instanceId) {
		return read(nodeId, instanceId).leases();
	}

	/**
	 * Read as {@link #findAll} does, and answer from the instance's view of its leases
	 * ({@link LeaseView}): it keeps every lease row and the sessions of its last read, and
	 * composes a lease from them when asked, so that no round composes every lease.
	 */
	@Override
	public LeaseReads readAll(String nodeId, String instanceId) {
		return read(nodeId, instanceId);
	}

	/** Read the leases of an instance's view into it. */
	private LeaseView read(String nodeId, String instanceId) {
		LeaseView view = view(nodeId, instanceId);
		LeaseView.Plan plan = view.plan();
		LeaseView.Read read = readView(view, plan, nodeId, instanceId);
		if (!plan.whole() && view.needsWhole(read, nodeId)) {
			plan = view.wholePlan();
			read = readView(view, plan, nodeId, instanceId);
		}
		view.take(plan, read, nodeId);
		if (this.causalReadsFailing) {
			// The node's own data answered: changes it has not applied yet may carry times
			// before the next read's, so that one reads the view whole.
			view.invalidate();
		}
		return view;
	}

	/** Read what a plan says, causally on Galera. */
	private LeaseView.Read readView(LeaseView view, LeaseView.Plan plan, String nodeId, String instanceId) {
		ServerStatements statements = statements();
		String sql;
		List<Object> args = new ArrayList<>(plan.keys().size() + 2);
		if (plan.whole()) {
			sql = statements.viewWhole();
			args.add(nodeId);
			args.add(instanceId);
		}
		else {
			StringBuilder statement = new StringBuilder(statements.viewChanged());
			args.add(plan.since());
			if (!plan.keys().isEmpty()) {
				statement.append(this.viewByKey).append('?').append(", ?".repeat(plan.keys().size() - 1)).append(')');
				args.addAll(plan.keys());
			}
			sql = statement.toString();
		}
		if (plan.paged()) {
			return readPages(statements, view, plan, nodeId, instanceId);
		}
		return readCausally(statements, view, sql, plan, args.toArray());
	}

	/**
	 * Read the view whole in pages of elections in name order (the
	 * database's), one statement each after one for the node rows, so that no statement
	 * nears the statement timeout however many elections the node has.
	 */
	private LeaseView.Read readPages(ServerStatements statements, LeaseView view, LeaseView.Plan plan, String nodeId,
			String instanceId) {
		LeaseView.Read read = readCausally(statements, view, statements.viewSessionsOnly(), plan, new Object[0]);
		String after = "";
		while (true) {
			LeaseView.Read page = readCausally(statements, view, statements.viewPage(), plan,
					new Object[] { nodeId, instanceId, after, plan.pageSize() });
			read.members().addAll(page.members());
			read.rows().addAll(page.rows());
			if (page.members().size() < plan.pageSize()) {
				return read;
			}
			after = page.members().get(page.members().size() - 1);
		}
	}

	/** Run one statement of a view's read, causally on Galera. */
	private LeaseView.Read readCausally(ServerStatements statements, LeaseView view, String sql, LeaseView.Plan plan,
			Object[] values) {
		if (statements.readPrefix().isEmpty()) {
			return readView(this.jdbc, view, sql, plan, values);
		}
		LeaseView.Read read;
		try {
			read = readView(this.causalOrLocalJdbc, view, statements.readPrefix() + sql, plan, values);
		}
		catch (DataAccessException ex) {
			if (!waitedTooLong(ex)) {
				throw ex;
			}
			if (!this.causalReadsFailing) {
				this.causalReadsFailing = true;
				logger.warn("Causal reads of the leases wait too long on this Galera node; reading the node's own"
						+ " data until they answer again: {}", ex.toString());
			}
			return readView(this.causalOrLocalJdbc, view, sql, plan, values);
		}
		if (this.causalReadsFailing) {
			this.causalReadsFailing = false;
			logger.info("Causal reads of the leases answer again on this Galera node");
		}
		return read;
	}

	private static LeaseView.Read readView(JdbcTemplate jdbc, LeaseView view, String sql, LeaseView.Plan plan,
			Object[] args) {
		LeaseView.Read read = view.newRead();
		jdbc.query(sql, (rs) -> {
			LeaseRows.mapView(rs, read, plan.whole());
		}, args);
		return read;
	}

	/**
	 * Change how many elections a node's view reads whole every round, how many it reads
	 * again by key besides what changed, and how many a page of a whole read has; for tests
	 * of the partial and paged reads with few elections.
	 * @param readInFullUpTo up to how many elections every read is whole
	 * @param rescannedPerRound how many elections a partial read reads again by key
	 * @param page most elections per page of a whole read
	 */
	void viewLimits(int readInFullUpTo, int rescannedPerRound, int page) {
		this.readInFullUpTo = readInFullUpTo;
		this.rescannedPerRound = rescannedPerRound;
		this.page = page;
		this.views.clear();
	}

	/**
	 * Tell the views that these elections' rows are being written: each reads them by key at
	 * its next read, whether the change applied or not.
	 */
	private void changing(Collection<String> elections) {
		this.views.values().forEach((view) -> view.changing(elections));
	}

	/** The view of a node id and instance, new if it has none. */
	private LeaseView view(String nodeId, String instanceId) {
		return this.views.computeIfAbsent(List.of(nodeId, instanceId),
				(key) -> new LeaseView(this.readInFullUpTo, this.rescannedPerRound, this.page));
	}

	/**
	 * Whether a read failed because it waited too long rather than because the server is
	 * out of reach: the client's socket timeout or query timeout, or the server's own limits
	 * on the statement or on the causal wait (1205, 1317, 1969).
	 */
	static boolean waitedTooLong(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SocketTimeoutException || cause instanceof SQLTimeoutException) {
				return true;
			}
			if (cause instanceof SQLException sqlException && WAITED_TOO_LONG.contains(sqlException.getErrorCode())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Run a statement per chunk of rows.
	 * @param rows the rows
	 * @param chunkSize most rows per statement
	 * @param statement runs the statement for a chunk and returns the rows it changed
	 * @return the rows changed, summed over the chunks
	 */
	private static int forEachChunk(List<Object[]> rows, int chunkSize, ToIntFunction<List<Object[]>> statement) {
		int changed = 0;
		for (int from = 0; from < rows.size(); from += chunkSize) {
			changed += statement.applyAsInt(rows.subList(from, Math.min(rows.size(), from + chunkSize)));
		}
		return changed;
	}

	/**
	 * Take the lease over in one transaction: first the write of its session's row, if the
	 * follower saw it with one, then the lease row and its fence row.
	 */
	@Override
	public boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease) {
		long millis = lease.toMillis();
		boolean withSession = !sessionOf(observed).isEmpty();
		boolean ended = endedSession(observed);
		return changeHolder(election, () -> {
			if (withSession && takeSessions(List.of(observed)).isEmpty()) {
				return 0;
			}
			List<Object> args = new ArrayList<>(Arrays.asList(nodeId, millis, this.sessions.get(nodeId), election,
					nodeId, millis, observed.version(), nodeId, millis));
			if (ended) {
				args.add(observed.holderVersion());
			}
			return this.jdbc.update(withSession ? statements().takeOver()
					: ended ? statements().takeOverFromEndedSession() : statements().takeOverWithoutSession(),
					args.toArray());
		});
	}

	/**
	 * Write the rows of the sessions that the observations saw, where each is still at the
	 * version seen and has run out: one statement per session, in node id order (the same
	 * order in every transaction, so that two take-overs wait rather than deadlock), before
	 * any lease row.
	 * @return the sessions written, as holder and version
	 */
	private Set<LeaseObservation> takeSessions(Collection<LeaseObservation> observations) {
		Set<LeaseObservation> written = new HashSet<>();
		Set<LeaseObservation> sessions = new TreeSet<>(Comparator.comparing(LeaseObservation::holder)
			.thenComparingLong(LeaseObservation::holderVersion));
		observations.forEach((observed) -> sessions.addAll(sessionOf(observed)));
		sessions.forEach((session) -> {
				if (this.jdbc.update(this.takeSession, session.holder(), session.holderVersion()) == 1) {
					written.add(session);
				}
			});
		return written;
	}

	/** The live session an observation saw, as holder and version only, or none. */
	private static Set<LeaseObservation> sessionOf(LeaseObservation observed) {
		return (observed.holder() != null && observed.holderVersion() >= 0 && !observed.sessionEnded())
				? Set.of(new LeaseObservation(-1, observed.holder(), observed.holderVersion(), false)) : Set.of();
	}

	/** Whether an observation saw the lease's session ended, at a version it names. */
	private static boolean endedSession(LeaseObservation observed) {
		return observed.holder() != null && observed.holderVersion() >= 0 && observed.sessionEnded();
	}

	/**
	 * Take over the listed leases in one transaction per chunk of
	 * {@value LeaseRows#MAX_ROWS_PER_UPDATE}, with their fence rows
	 * ({@link BatchedHolderChange}: a lease whose fence row a fenced transaction holds is
	 * left for a later call rather than waited for). Each row under the single-row
	 * take-over's conditions, the version of an expired one given as an (election, version)
	 * pair; a vacant one is taken at any version, as there.
	 */
	@Override
	public List<LeaseState> takeOverAll(String nodeId, Map<String, LeaseObservation> observed, Duration lease) {
		long millis = lease.toMillis();
		Map<String, Long> fromSessions = new HashMap<>();
		Map<String, Long> withoutSessions = new HashMap<>();
		Map<Long, Map<String, Long>> fromEndedSessions = new TreeMap<>();
		observed.forEach((election, observation) -> {
			if (endedSession(observation)) {
				fromEndedSessions.computeIfAbsent(observation.holderVersion(), (version) -> new HashMap<>())
					.put(election, observation.version());
			}
			else {
				(sessionOf(observation).isEmpty() ? withoutSessions : fromSessions).put(election, observation.version());
			}
		});
		List<Object> assignments = Arrays.asList(nodeId, millis, this.sessions.get(nodeId));
		String newTerm = "leader_id = ?, " + statements().newTerm();
		List<LeaseState> taken = new ArrayList<>(changeAll(fromSessions,
				new BatchedHolderChange.Change(newTerm, assignments, this.takeable, List.of(nodeId, millis),
						List.of(nodeId, millis)),
				(chunk) -> {
					// The sessions first, then only the leases whose session was written.
					Set<LeaseObservation> written = takeSessions(chunk.keySet().stream().map(observed::get).toList());
					chunk.keySet().removeIf((election) -> !written.containsAll(sessionOf(observed.get(election))));
				}));
		taken.addAll(changeAll(withoutSessions, new BatchedHolderChange.Change(newTerm, assignments,
				this.takeableWithoutSession, List.of(nodeId, millis), List.of(nodeId, millis)), (chunk) -> {
				}));
		// A session that ended at the version watched: nothing can renew it any more.
		fromEndedSessions.forEach((sessionVersion, rows) -> taken.addAll(changeAll(rows,
				new BatchedHolderChange.Change(newTerm, assignments, this.takeableFromEndedSession,
						List.of(nodeId, millis), List.of(nodeId, millis, sessionVersion)),
				(chunk) -> {
				})));
		return taken;
	}

	/** Hand the listed leases over as {@link #takeOverAll} takes them, each with its own term. */
	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease) {
		// No session: the node that gets the lease re-acquires it under a term of its own.
		return changeAll(terms, new BatchedHolderChange.Change("leader_id = ?, " + statements().newTerm(),
				Arrays.asList(toNodeId, lease.toMillis(), null), this.heldWithTerm, List.of(fromNodeId), List.of()),
				(chunk) -> {
				});
	}

	/** Give the listed leases up as {@link #takeOverAll} takes them, each with its own term. */
	@Override
	public List<LeaseState> yieldAll(String nodeId, Map<String, Long> terms) {
		return changeAll(terms, new BatchedHolderChange.Change(this.yielded, List.of(nodeId), this.heldWithTerm,
				List.of(nodeId), List.of()), (chunk) -> {
				});
	}

	/** Reacquire the listed leases as {@link #takeOverAll} takes them, each with its own term. */
	@Override
	public List<LeaseState> reacquireAll(String nodeId, Map<String, Long> terms, Duration lease) {
		return changeAll(terms, new BatchedHolderChange.Change(statements().reacquiredTerm(),
				Arrays.asList(lease.toMillis(), this.sessions.get(nodeId)), this.heldWithTerm, List.of(nodeId), List.of()),
				(chunk) -> {
				});
	}

	/**
	 * Change the listed rows in one transaction per chunk, in key order, so that the rows of
	 * one batch are locked in the order of every other's.
	 */
	private List<LeaseState> changeAll(Map<String, Long> rows, BatchedHolderChange.Change change,
			Consumer<Map<String, Long>> first) {
		List<Map.Entry<String, Long>> sorted = List.copyOf(new TreeMap<>(rows).entrySet());
		changing(rows.keySet());
		List<LeaseState> changed = new ArrayList<>();
		for (int from = 0; from < sorted.size(); from += LeaseRows.MAX_ROWS_PER_UPDATE) {
			Map<String, Long> chunk = new LinkedHashMap<>();
			sorted.subList(from, Math.min(sorted.size(), from + LeaseRows.MAX_ROWS_PER_UPDATE))
				.forEach((row) -> chunk.put(row.getKey(), row.getValue()));
			try {
				changed.addAll(inTransaction(this.holderChanges, () -> {
					first.accept(chunk);
					return chunk.isEmpty() ? List.of() : statements().batch().run(this.jdbc, change, chunk);
				}));
			}
			catch (BatchedHolderChange.NothingChanged ex) {
				// Rolled back: none of the chunk's leases changed.
			}
		}
		return changed;
	}

	@Override
	public boolean handOver(String election, String fromNodeId, long term, String toNodeId, Duration lease) {
		return changeHolder(election,
				() -> this.jdbc.update(statements().handOver(), toNodeId, lease.toMillis(), null, election, fromNodeId,
						term));
	}

	@Override
	public boolean yield(String election, String nodeId, long term) {
		return changeHolder(election, () -> this.jdbc.update(this.yield, nodeId, election, nodeId, term));
	}

	@Override
	public boolean reacquire(String election, String nodeId, long term, Duration lease) {
		return changeHolder(election,
				() -> this.jdbc.update(statements().reacquire(), lease.toMillis(), this.sessions.get(nodeId), election,
						nodeId, term));
	}

	/**
	 * Change the holder of a lease and, in the same transaction, its fence row. Updating the
	 * fence row waits for fenced transactions, which hold it in share mode (I5), for at most
	 * half the statement timeout, a limit the server enforces ({@link SqlDialect#boundFenceWait}):
	 * the failed change then rolls back and leaves the lease row to the batches, which skip
	 * the busy fence.
	 * @param election election name
	 * @param change the statement on the lease row, returning the rows it changed
	 * @return whether the lease row changed
	 */
	private boolean changeHolder(String election, IntSupplier change) {
		changing(List.of(election));
		return inTransaction(this.holderChanges, () -> {
			if (change.getAsInt() != 1) {
				return false;
			}
			if (this.boundFenceWait != null) {
				this.jdbc.queryForList(this.boundFenceWait, election);
			}
			if (this.jdbc.update(this.updateFence, election, election, election) == 0) {
				this.jdbc.update(this.insertFence, election);
			}
			return true;
		});
	}

	@Override
	public boolean requestHandover(String election, String nodeId) {
		changing(List.of(election));
		return OutsideCallerTransaction.run(() -> this.jdbc.update(this.requestHandover, nodeId, election) == 1);
	}

	/**
	 * Record the requests in one statement per target and chunk of
	 * {@value LeaseRows#MAX_ROWS_PER_UPDATE}, each row by key and only while this node holds it.
	 */
	@Override
	public int requestHandoverAll(String holderId, Map<String, String> targets) {
		changing(targets.keySet());
		Map<String, List<String>> byTarget = new TreeMap<>();
		new TreeMap<>(targets).forEach((election, target) -> byTarget.computeIfAbsent(target, (key) -> new ArrayList<>())
			.add(election));
		int recorded = 0;
		for (Map.Entry<String, List<String>> target : byTarget.entrySet()) {
			List<Object[]> rows = target.getValue().stream().map((election) -> new Object[] { election }).toList();
			recorded += forEachChunk(rows, LeaseRows.MAX_ROWS_PER_UPDATE, (chunk) -> {
				List<Object> args = new ArrayList<>(List.of(target.getKey(), holderId));
				chunk.forEach((row) -> args.add(row[0]));
				return this.jdbc.update(this.requestHandoverAll + "?" + ", ?".repeat(chunk.size() - 1) + ")",
						args.toArray());
			});
		}
		return recorded;
	}

	@Override
	public boolean requestReelection(String election) {
		changing(List.of(election));
		return OutsideCallerTransaction.run(() -> this.jdbc.update(this.requestReelection, election) == 1);
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, Duration staleAfter) {
		long millis = staleAfter.toMillis();
		// Steady state is the first statement alone.
		if (this.jdbc.update(this.refreshNode, millis, nodeId, instanceId) == 1) {
			this.sessions.put(nodeId, instanceId);
			return Candidacy.HELD;
		}
		this.sessions.remove(nodeId, instanceId);
		// The node's candidacies may change hands: its views are read whole again.
		this.views.forEach((key, view) -> {
			if (key.get(0).equals(nodeId)) {
				view.invalidate();
			}
		});
		Candidacy candidacy;
		if (this.jdbc.update(this.inheritNode, instanceId, millis, nodeId, millis) == 1) {
			candidacy = Candidacy.INHERITED;
		}
		else {
			try {
				this.jdbc.update(this.insertNode, nodeId, instanceId, millis);
				candidacy = Candidacy.CREATED;
			}
			catch (DuplicateKeyException ex) {
				// A live row of another instance, or one written since the statements above.
				return Candidacy.IN_USE;
			}
		}
		this.sessions.put(nodeId, instanceId);
		// The node id is this instance's now, and so are the candidacies of earlier instances.
		List<Object[]> earlier = this.jdbc.query(this.earlierCandidacies, (rs, row) -> new Object[] { rs.getString(1) },
				nodeId, instanceId);
		forEachChunk(earlier, MAX_PARAMETERS_PER_STATEMENT, (chunk) -> {
			StringBuilder sql = new StringBuilder(this.claimCandidacies);
			List<Object> args = new ArrayList<>(List.of(instanceId, nodeId, instanceId));
			for (Object[] election : chunk) {
				sql.append((args.size() == 3) ? "?" : ", ?");
				args.add(election[0]);
			}
			return this.jdbc.update(sql.append(')').toString(), args.toArray());
		});
		return candidacy;
	}

	@Override
	public void removeCandidate(String election, String nodeId, String instanceId) {
		view(nodeId, instanceId).left(election);
		this.jdbc.update(this.removeCandidate, election, nodeId, instanceId);
	}

	/**
	 * Found by a plain read, then deleted by key, a chunk of names per statement, as the
	 * claim of earlier candidacies is: a delete that ranged over the node's index entries
	 * would lock the gaps where other nodes insert theirs.
	 */
	@Override
	public void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections) {
		view(nodeId, instanceId).retain(elections);
		Set<String> running = new HashSet<>(elections);
		List<Object[]> others = new ArrayList<>();
		for (String election : this.jdbc.queryForList(this.ownCandidacies, String.class, nodeId, instanceId)) {
			if (!running.contains(election)) {
				others.add(new Object[] { election });
			}
		}
		forEachChunk(others, MAX_PARAMETERS_PER_STATEMENT, (chunk) -> {
			StringBuilder sql = new StringBuilder(this.leaveCandidacies);
			List<Object> args = new ArrayList<>(List.of(nodeId, instanceId));
			for (Object[] election : chunk) {
				sql.append((args.size() == 2) ? "?" : ", ?");
				args.add(election[0]);
			}
			return this.jdbc.update(sql.append(')').toString(), args.toArray());
		});
	}

	@Override
	public void join(String nodeId, String instanceId, Collection<String> elections) {
		// The view knows how many elections its first read reads (in pages, if many).
		view(nodeId, instanceId).joined(elections);
		String ignoreDuplicates = this.ignoreDuplicates;
		if (ignoreDuplicates == null) {
			for (String election : elections) {
				try {
					this.jdbc.update(this.insertCandidate, nodeId, instanceId, election, nodeId, instanceId);
					accepted(this.tables.candidateTable(), List.of(election));
				}
				catch (DuplicateKeyException ex) {
					// Left as it is: this instance's, or another's.
				}
				catch (DataAccessException ex) {
					if (!refusesRow(ex)) {
						throw ex;
					}
					refused(new Row(this.tables.candidateTable(), election), ex, List.of());
				}
			}
			return;
		}
		List<String> batched = new ArrayList<>(elections.size());
		List<String> alone = new ArrayList<>();
		elections.forEach((election) -> (this.refusedRows.containsKey(new Row(this.tables.candidateTable(), election))
				? alone : batched).add(election));
		// Chunks of a thousand elections.
		for (int from = 0; from < batched.size(); from += JOINS_PER_STATEMENT) {
			join(nodeId, instanceId, batched.subList(from, Math.min(batched.size(), from + JOINS_PER_STATEMENT)),
					ignoreDuplicates);
		}
		alone.forEach((election) -> join(nodeId, instanceId, List.of(election), ignoreDuplicates));
	}

	/**
	 * Insert one chunk of candidates rows in one statement; a chunk that fails for a row the
	 * database refuses is halved until that row is alone, as {@link #createAll} does.
	 */
	private void join(String nodeId, String instanceId, List<String> chunk, String ignoreDuplicates) {
		StringBuilder sql = new StringBuilder(this.joinAll.length() + chunk.size() * (this.joinedElection.length() + 11) + 80).append(this.joinAll);
		List<Object> args = new ArrayList<>(chunk.size() + 4);
		args.addAll(List.of(nodeId, instanceId));
		for (String election : chunk) {
			sql.append((args.size() == 2) ? "" : " UNION ALL ").append(this.joinedElection);
			args.add(election);
		}
		args.addAll(List.of(nodeId, instanceId));
		try {
			this.jdbc.update(sql.append(this.joinedByThisInstance).append(ignoreDuplicates).toString(), args.toArray());
			accepted(this.tables.candidateTable(), chunk);
		}
		catch (DataAccessException ex) {
			if (!refusesRow(ex)) {
				throw ex;
			}
			if (chunk.size() == 1) {
				refused(new Row(this.tables.candidateTable(), chunk.get(0)), ex, List.of());
				return;
			}
			join(nodeId, instanceId, chunk.subList(0, chunk.size() / 2), ignoreDuplicates);
			join(nodeId, instanceId, chunk.subList(chunk.size() / 2, chunk.size()), ignoreDuplicates);
		}
	}

	@Override
	public void removeCandidacies(String nodeId, String instanceId) {
		this.sessions.remove(nodeId, instanceId);
		this.views.remove(List.of(nodeId, instanceId));
		this.jdbc.update(this.removeCandidacies, nodeId, instanceId);
		this.jdbc.update(this.removeNode, nodeId, instanceId);
	}

	/**
	 * Delete what stayed unused for {@code maxAge}: at most {@value #PURGED_PER_ROUND} node
	 * rows with their candidacies and as many leases with their fence rows per call, each
	 * by key; the rest is left to later calls. The leases are looked for in the next slice of
	 * {@value #PURGE_SLICE} lease rows in key order, the slices going round the table call
	 * after call.
	 */
	@Override
	public void purge(Duration maxAge) {
		long millis = maxAge.toMillis();
		Map<String, Long> stale = new HashMap<>();
		this.jdbc.query(this.staleNodes, (rs) -> {
			stale.put(rs.getString(1), rs.getLong(2));
		}, millis);
		stale.forEach((node, version) -> {
			if (version.equals(this.staleAtLastPurge.get(node))) {
				inTransaction(this.holderChanges, () -> (this.jdbc.update(this.purgeNode, node, version, millis) == 1)
						&& this.jdbc.update(this.purgeCandidacies, node) >= 0);
			}
		});
		this.staleAtLastPurge = stale;
		// A fenced transaction of a deleted lease could only fail its check; nothing else
		// reads a fence row without its lease.
		String from = this.purgeFrom;
		List<String> end = this.jdbc.queryForList(this.purgeSliceEnd, String.class, from);
		List<String> unused = end.isEmpty()
				? this.jdbc.queryForList(this.unusedLeasesToTheEnd, String.class, from, millis)
				: this.jdbc.queryForList(this.unusedLeases, String.class, from, millis, end.get(0));
		for (String election : unused) {
			deleteWithDependants(this.purgeLease, this.purgeFence, election, millis);
		}
		// A slice with more unused rows than one purge deletes is looked through again.
		if (unused.size() < PURGED_PER_ROUND) {
			this.purgeFrom = end.isEmpty() ? "" : end.get(0);
		}
	}

	private void deleteWithDependants(String delete, String deleteDependants, String key, long maxAgeMillis) {
		inTransaction(this.holderChanges, () -> (this.jdbc.update(delete, key, maxAgeMillis) == 1)
				&& this.jdbc.update(deleteDependants, key) >= 0);
	}

	@Override
	public List<Candidate> liveCandidates(String election, Duration maxAge) {
		return OutsideCallerTransaction.run(() -> this.jdbc.query(statements().liveCandidates(),
				(rs, row) -> new Candidate(rs.getString("node_id"), Instant.ofEpochMilli(rs.getLong("first_seen")),
						Instant.ofEpochMilli(rs.getLong("last_seen"))),
				election, maxAge.toMillis()));
	}

	@Override
	public <T extends @Nullable Object> T runFenced(String election, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		try {
			return this.fencedTransactions.run(this.fence, true, election, nodeId, term, maxHoldTime,
					() -> refusal(election, nodeId, term), callback);
		}
		catch (RuntimeException ex) {
			if (this.fencedTransactions.certifiesWriteSets() && !(ex instanceof NotLeaderException)
					&& isCertificationFailure(ex)) {
				throw new FenceNotConfirmedException(election, nodeId, term, ex);
			}
			throw ex;
		}
	}

	/**
	 * Whether the server aborted the transaction as the loser of a conflict: on Galera, a
	 * failed certification or a brute-force abort by a replicated write (1213, SQLSTATE 40001).
	 */
	private static boolean isCertificationFailure(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sqlException
					&& (sqlException.getErrorCode() == 1213 || "40001".equals(sqlException.getSQLState()))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Read why the fence refused, without a lock.
	 */
	private NotLeaderException refusal(String election, String nodeId, long term) {
		List<Fence> fences = this.fencedTransactions.jdbcTemplate().query(this.fenceView,
				(rs, row) -> new Fence(rs.getString("leader_id"), rs.getLong("term"), rs.getInt("valid") == 1),
				election);
		if (fences.isEmpty()) {
			return new NotLeaderException(election, nodeId, "the election has no lease");
		}
		Fence fence = fences.get(0);
		if (!nodeId.equals(fence.leaderId) || fence.term != term) {
			return new NotLeaderException(election, nodeId,
					"the lease is held by '" + fence.leaderId + "' with term " + fence.term + ", not term " + term);
		}
		return new NotLeaderException(election, nodeId, "the lease of term " + term + " has expired");
	}

	private record Fence(@Nullable String leaderId, long term, boolean valid) {
	}

	/**
	 * The statements whose text depends on the kind of server that answers: those that
	 * write or compare the server's identity, and the reads whose answers the election acts
	 * on. One set for a single server; one for a MariaDB Galera cluster, where the identity
	 * is the cluster's ({@link SqlDialect#galeraIdentity()}: any node of the cluster holds
	 * the same data, so a pool that reconnects to another node is no failover) and the
	 * deciding reads are causal ({@link SqlDialect#causalRead()}: they wait until their
	 * node has applied every write that the cluster committed before them, so a follower
	 * does not act on a lease older than the last one committed on any node, except on the
	 * plain read that stands in when the causal read waits too long).
	 */
	private record ServerStatements(String find, String readPrefix, String viewWhole, String viewChanged,
			String viewSessionsOnly, String viewPage, String create,
			String takeOver, String takeOverWithoutSession, String takeOverFromEndedSession, BatchedHolderChange batch,
			String newTerm, String reacquiredTerm, String handOver, String reacquire, String liveCandidates) {

		/**
		 * Build the statements.
		 * @param dialect the dialect
		 * @param tables the tables
		 * @param server SQL expression of the answering server's identity
		 * @param read prefix of the deciding reads, empty for plain reads
		 * @return the statements; the view's reads are plain, to be read with {@code readPrefix}
		 * where they decide ({@link JdbcLeaseRepository#readAll}). {@code newTerm} ends with the instance the
		 * lease lives on, a parameter: the acquirer's session, or none for a hand-over
		 */
		static ServerStatements of(SqlDialect dialect, LeaseTables tables, String server, String read) {
			String now = dialect.now();
			String lease = tables.leaseTable();
			String candidates = tables.candidateTable();
			String nodes = tables.nodesTable();
			String newTerm = LeaseRows.newTerm(now, server) + ", leader_instance = ?";
			String reacquiredTerm = LeaseRows.reacquiredTerm(now, server) + ", leader_instance = ?";
			String plainSelect = LeaseRows.selectElections(dialect, lease, nodes, server);
			String select = read + plainSelect;
			String viewSessions = LeaseRows.viewSessions(dialect, nodes, server);
			String sessions = LeaseRows.sessions(dialect, nodes);
			String takeOver = "UPDATE " + lease + " SET leader_id = ?, " + newTerm + " WHERE election_name = ? AND "
					+ LeaseRows.takeable(now, "version = ?", sessions);
			// A candidate is live while its node's row is fresh and names the same instance.
			String liveCandidates = read + "SELECT c.node_id, c.first_seen, n.last_seen FROM " + candidates
					+ " c JOIN " + nodes + " n ON n.node_id = c.node_id AND n.instance_id = c.instance_id"
					+ " WHERE c.election_name = ? AND n.last_seen > " + now + " - ? ORDER BY c.node_id";
			return new ServerStatements(select + " WHERE l.election_name = ?", read,
					viewSessions + LeaseRows.viewWhole(lease, candidates), viewSessions + LeaseRows.viewChanged(lease),
					viewSessions, LeaseRows.viewPage(lease, candidates),
					LeaseRows.insertElection(dialect, lease, server), takeOver,
					takeOver + " AND " + LeaseRows.noSession(sessions),
					takeOver + " AND " + LeaseRows.noSession(sessions) + " AND " + LeaseRows.sessionEndedAt(sessions),
					new BatchedHolderChange(dialect, tables, server),
					newTerm, reacquiredTerm,
					"UPDATE " + lease + " SET leader_id = ?, " + newTerm
							+ " WHERE election_name = ? AND leader_id = ? AND term = ?",
					"UPDATE " + lease + " SET " + reacquiredTerm
							+ " WHERE election_name = ? AND leader_id = ? AND term = ?",
					liveCandidates);
		}

	}

}
