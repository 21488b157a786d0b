package io.github.dbleader.election.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.FenceNotConfirmedException;
import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseReads;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NodeRowSighting;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.lock.ClusterLocks;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link LeaseRepository} on a relational database through {@link JdbcTemplate}. All time
 * arithmetic happens in SQL on the database clock, in epoch milliseconds (UTC). Every
 * election statement has a query timeout and a network timeout, both from the statement
 * timeout.
 *
 * <p>
 * Two data sources: the election's statements go to {@code electionDataSource} (ideally a
 * tiny pool of its own, so business load cannot starve renewals); fenced work runs on the
 * application's transaction manager, so that the application's own {@code JdbcTemplate}
 * joins the fenced transaction.
 *
 * <p>
 * Four tables ({@link LeaseTables}): the lease row, written by every change of holder;
 * the candidates (which node takes part in which election); the nodes, one row per node
 * id that its heartbeat refreshes; and the fence row, a copy of the lease's holder and
 * term that every change of holder updates in the same transaction as the lease row.
 * Fenced transactions lock the fence row in share mode, so a change of holder waits for
 * them (I5) while renewals do not (I9).
 *
 * <p>
 * Cluster locks are rows of the lease table too, named with the prefix
 * {@value ClusterLocks#KEY_PREFIX}; their statements are {@link JdbcLockRepository}'s.
 * Purges leave those rows alone.
 *
 * <p>
 * On a MariaDB Galera node (asked once, at the first statement), the statements that
 * record or compare the server's identity use the cluster's instead, so that a pool that
 * reconnects to another node of the cluster is no failover, and the reads the election
 * acts on are causal ({@link SqlDialect#causalRead()}); the heartbeat's read of the
 * leases answers from the node's own data when its causal read waits too long
 * ({@link #readAll}).
 *
 * <p>
 * What it sends is {@link LeaseStatements}'s, through a {@link JdbcStore}; node sessions
 * and candidacies ({@link NodeSessions}), the views' reads ({@link ViewReads}), changes
 * of holder ({@link HolderChanges}) and purges ({@link Purges}) each have a class of
 * their own.
 */
public class JdbcLeaseRepository implements LeaseRepository {

	private final JdbcStore store;

	private final RefusedRows refusedRows;

	private final ViewReads views;

	private final NodeSessions sessions;

	private final HolderChanges holderChanges;

	private final Purges purges;

	/**
	 * Whether the first statement for the server that answers has checked the tables'
	 * names.
	 */
	private volatile boolean namesChecked;

	/**
	 * Create a repository.
	 * @param store where its statements go
	 */
	public JdbcLeaseRepository(JdbcStore store) {
		this.store = store;
		this.refusedRows = new RefusedRows(store.tables());
		this.views = new ViewReads(store, this::statements);
		this.sessions = new NodeSessions(store, this.views, this.refusedRows);
		this.holderChanges = new HolderChanges(store, this::statements, this.views, this.sessions, this.refusedRows);
		this.purges = new Purges(store);
	}

	/**
	 * Create a repository.
	 * @param electionDataSource data source for the election's statements
	 * @param transactionManager the application's transaction manager for fenced work;
	 * must manage {@code applicationDataSource}
	 * @param applicationDataSource the data source fenced work writes to
	 * @param dialect SQL dialect
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcLeaseRepository(DataSource electionDataSource, PlatformTransactionManager transactionManager,
			DataSource applicationDataSource, SqlDialect dialect, LeaseTables tables, Duration statementTimeout) {
		this(new JdbcStore(electionDataSource, transactionManager, applicationDataSource, dialect, tables,
				statementTimeout));
	}

	/**
	 * Create a repository whose election statements and fenced work share one data
	 * source.
	 * @param dataSource the data source
	 * @param dialect SQL dialect
	 * @param tables table names
	 * @param statementTimeout limit of every election statement
	 */
	public JdbcLeaseRepository(DataSource dataSource, SqlDialect dialect, LeaseTables tables,
			Duration statementTimeout) {
		this(dataSource, new DataSourceTransactionManager(dataSource), dataSource, dialect, tables, statementTimeout);
	}

	/**
	 * @return the dialect in use
	 */
	public SqlDialect dialect() {
		return this.store.dialect();
	}

	/**
	 * The statements for the server that the election's data source reaches, asked of it
	 * once: a MariaDB Galera node gets the cluster's. The first call also checks, on
	 * MySQL and MariaDB, that the tables compare names exactly.
	 */
	private LeaseStatements statements() {
		LeaseStatements statements = this.store.serverStatements();
		if (!this.namesChecked) {
			if (statements.dialect == SqlDialect.MYSQL) {
				this.refusedRows.checkNamesCompareExactly(this.store.jdbc());
			}
			this.namesChecked = true;
		}
		return statements;
	}

	@Override
	public Optional<LeaseState> find(String election) {
		return OutsideCallerTransaction.run(() -> this.store.jdbc()
			.query(statements().find, (rs, row) -> LeaseRows.mapElection(rs), election)
			.stream()
			.findFirst());
	}

	@Override
	public boolean create(String election, String nodeId, Duration lease) {
		return this.holderChanges.create(election, nodeId, lease);
	}

	@Override
	public List<LeaseState> createAll(String nodeId, List<String> elections, Duration lease) {
		return this.holderChanges.createAll(nodeId, elections, lease);
	}

	/**
	 * Read the leases of this instance's elections: the rows that changed since its last
	 * read and a few by key, joined with every node row, its session, read now
	 * ({@link LeaseView}), in one statement; whole where that is needed or as cheap
	 * ({@link ViewReads}).
	 */
	@Override
	public List<LeaseState> findAll(String nodeId, String instanceId) {
		return this.views.read(nodeId, instanceId).leases();
	}

	/**
	 * Read as {@link #findAll} does, and answer from the instance's view of its leases
	 * ({@link LeaseView}): it keeps every lease row and the sessions of its last read,
	 * and composes a lease from them when asked, so that no round composes every lease.
	 */
	@Override
	public LeaseReads readAll(String nodeId, String instanceId) {
		return this.views.read(nodeId, instanceId);
	}

	/**
	 * Change how many elections a node's view reads whole every round, how many it reads
	 * again by key besides what changed, and how many a page of a whole read has; for
	 * tests of the partial and paged reads with few elections.
	 * @param readInFullUpTo up to how many elections every read is whole
	 * @param rescannedPerRound how many elections a partial read reads again by key
	 * @param page most elections per page of a whole read
	 */
	void viewLimits(int readInFullUpTo, int rescannedPerRound, int page) {
		this.views.limits(readInFullUpTo, rescannedPerRound, page);
	}

	@Override
	public boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease) {
		return this.holderChanges.takeOver(election, nodeId, observed, lease);
	}

	@Override
	public List<LeaseState> takeOverAll(String nodeId, Map<String, LeaseObservation> observed, Duration lease) {
		return this.holderChanges.takeOverAll(nodeId, observed, lease);
	}

	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease) {
		return this.holderChanges.handOverAll(fromNodeId, terms, toNodeId, lease, null);
	}

	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease,
			@Nullable String decidedOn) {
		return this.holderChanges.handOverAll(fromNodeId, terms, toNodeId, lease, decidedOn);
	}

	@Override
	public List<LeaseState> yieldAll(String nodeId, Map<String, Long> terms) {
		return this.holderChanges.yieldAll(nodeId, terms);
	}

	@Override
	public List<LeaseState> reacquireAll(String nodeId, Map<String, Long> terms, Duration lease) {
		return this.holderChanges.reacquireAll(nodeId, terms, lease);
	}

	@Override
	public boolean handOver(String election, String fromNodeId, long term, String toNodeId, Duration lease) {
		return this.holderChanges.handOver(election, fromNodeId, term, toNodeId, lease);
	}

	@Override
	public boolean yield(String election, String nodeId, long term) {
		return this.holderChanges.yield(election, nodeId, term);
	}

	@Override
	public boolean reacquire(String election, String nodeId, long term, Duration lease) {
		return this.holderChanges.reacquire(election, nodeId, term, lease);
	}

	@Override
	public boolean requestHandover(String election, String nodeId) {
		return this.holderChanges.requestHandover(election, nodeId);
	}

	@Override
	public int requestHandoverAll(String holderId, Map<String, String> targets) {
		return this.holderChanges.requestHandoverAll(holderId, targets);
	}

	@Override
	public int askToLead(String nodeId, String holderId, Collection<String> elections) {
		return this.holderChanges.askToLead(nodeId, holderId, elections);
	}

	@Override
	public boolean requestReelection(String election) {
		return this.holderChanges.requestReelection(election);
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, Duration staleAfter, long inheritVersion) {
		return heartbeat(nodeId, instanceId, "", staleAfter, inheritVersion);
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, String rank, Duration staleAfter,
			long inheritVersion) {
		return this.sessions.heartbeat(nodeId, instanceId, rank, staleAfter, inheritVersion);
	}

	@Override
	public @Nullable NodeRowSighting nodeRow(String nodeId, Duration staleAfter) {
		return this.sessions.nodeRow(nodeId, staleAfter);
	}

	@Override
	public void removeCandidate(String election, String nodeId, String instanceId) {
		this.sessions.removeCandidate(election, nodeId, instanceId);
	}

	@Override
	public void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections) {
		this.sessions.leaveOtherElections(nodeId, instanceId, elections);
	}

	@Override
	public boolean refusesRowsOf(String election) {
		return this.refusedRows.refuses(election);
	}

	@Override
	public void join(String nodeId, String instanceId, Collection<String> elections) {
		this.sessions.join(nodeId, instanceId, elections);
	}

	@Override
	public void removeCandidacies(String nodeId, String instanceId) {
		this.sessions.removeCandidacies(nodeId, instanceId);
	}

	@Override
	public void purge(Duration maxAge) {
		this.purges.purge(maxAge);
	}

	@Override
	public List<Candidate> liveCandidates(String election, Duration maxAge) {
		return OutsideCallerTransaction.run(() -> this.store.jdbc()
			.query(statements().liveCandidates, (rs, row) -> new Candidate(rs.getString("node_id"),
					Instant.ofEpochMilli(rs.getLong("first_seen")), Instant.ofEpochMilli(rs.getLong("last_seen"))),
					election, maxAge.toMillis()));
	}

	@Override
	public <T extends @Nullable Object> T runFenced(String election, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		try {
			return this.store.fencedTransactions()
				.run(this.store.platformStatements().fence, true, election, nodeId, term, maxHoldTime,
						() -> refusal(election, nodeId, term), callback);
		}
		catch (RuntimeException ex) {
			if (this.store.fencedTransactions().certifiesWriteSets() && !(ex instanceof NotLeaderException)
					&& isCertificationFailure(ex)) {
				throw new FenceNotConfirmedException(election, nodeId, term, ex);
			}
			throw ex;
		}
	}

	/**
	 * Whether the server aborted the transaction as the loser of a conflict: on Galera, a
	 * failed certification or a brute-force abort by a replicated write (1213, SQLSTATE
	 * 40001).
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
		List<Fence> fences = this.store.fencedTransactions()
			.jdbcTemplate()
			.query(this.store.platformStatements().fenceView,
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

}
