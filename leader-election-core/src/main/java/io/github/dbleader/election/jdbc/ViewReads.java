package io.github.dbleader.election.jdbc;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The heartbeat's reads of each node's view of its elections' leases ({@link LeaseView}):
 * the rows that changed since its last read and a few by key, joined with every node row,
 * its session, read now, in one statement; whole where that is needed or as cheap, in
 * pages when the node has many elections. On MariaDB Galera a causal read; if it waits
 * too long (the node lags, or the cluster stalls while it evicts a dead node), the node's
 * own data instead, in the same statement timeout, and the view is read whole at the next
 * causal read. A follower keeps watching the row that way (I3); a stale view costs
 * nothing but a take-over that fails, as the take-over is conditional on the version it
 * saw and Galera certifies it against every later write of the row.
 */
final class ViewReads {

	private static final Logger logger = LoggerFactory.getLogger(ViewReads.class);

	/**
	 * MySQL error codes of a statement that waited too long: lock wait timeout (also a
	 * causal wait past {@code repl.causal_read_timeout}), interrupted,
	 * {@code max_statement_time}.
	 */
	private static final Set<Integer> WAITED_TOO_LONG = Set.of(1205, 1317, 1969);

	private final JdbcStore store;

	private final Supplier<LeaseStatements> statements;

	/** Whether the last causal read of the follower's view waited too long. */
	private volatile boolean causalReadsFailing;

	/** Each node's view of its elections' leases, by node id and instance id. */
	private final Map<List<String>, LeaseView> views = new ConcurrentHashMap<>();

	private volatile int readInFullUpTo = LeaseView.READ_IN_FULL_UP_TO;

	private volatile int rescannedPerRound = LeaseView.RESCANNED_PER_ROUND;

	private volatile int page = LeaseView.PAGE;

	/**
	 * Create the reads.
	 * @param store where the statements go
	 * @param statements the statements for the server that answers
	 */
	ViewReads(JdbcStore store, Supplier<LeaseStatements> statements) {
		this.store = store;
		this.statements = statements;
	}

	/** Read the leases of an instance's view into it. */
	LeaseView read(String nodeId, String instanceId) {
		LeaseView view = view(nodeId, instanceId);
		LeaseView.Plan plan = view.plan();
		LeaseView.Read read = readView(view, plan, nodeId, instanceId);
		if (!plan.whole() && view.needsWhole(read, nodeId)) {
			plan = view.wholePlan();
			read = readView(view, plan, nodeId, instanceId);
		}
		view.take(plan, read, nodeId);
		if (this.causalReadsFailing) {
			// The node's own data answered: changes it has not applied yet may carry
			// times before the next read's, so that one reads the view whole.
			view.invalidate();
		}
		return view;
	}

	/** Read what a plan says, causally on Galera. */
	private LeaseView.Read readView(LeaseView view, LeaseView.Plan plan, String nodeId, String instanceId) {
		LeaseStatements statements = this.statements.get();
		String sql;
		List<Object> args = new ArrayList<>(plan.keys().size() + 2);
		if (plan.whole()) {
			sql = statements.viewWhole;
			args.add(nodeId);
			args.add(instanceId);
		}
		else {
			args.add(plan.since());
			if (!plan.keys().isEmpty()) {
				sql = statements.viewChangedAndByKey.render(plan.keys().size());
				args.addAll(plan.keys());
			}
			else {
				sql = statements.viewChanged;
			}
		}
		if (plan.paged()) {
			return readPages(statements, view, plan, nodeId, instanceId);
		}
		return readCausally(statements, view, sql, plan, args.toArray());
	}

	/**
	 * Read the view whole in pages of elections in name order (the database's), one
	 * statement each after one for the node rows, so that no statement nears the
	 * statement timeout however many elections the node has.
	 */
	private LeaseView.Read readPages(LeaseStatements statements, LeaseView view, LeaseView.Plan plan, String nodeId,
			String instanceId) {
		LeaseView.Read read = readCausally(statements, view, statements.viewSessionsOnly, plan, new Object[0]);
		String after = "";
		while (true) {
			LeaseView.Read page = readCausally(statements, view, statements.viewPage, plan,
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
	private LeaseView.Read readCausally(LeaseStatements statements, LeaseView view, String sql, LeaseView.Plan plan,
			Object[] values) {
		if (statements.causalRead.isEmpty()) {
			return readView(this.store.jdbc(), view, sql, plan, values);
		}
		LeaseView.Read read;
		try {
			read = readView(this.store.causalOrLocalJdbc(), view, statements.causalRead + sql, plan, values);
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
			return readView(this.store.causalOrLocalJdbc(), view, sql, plan, values);
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
	 * again by key besides what changed, and how many a page of a whole read has; for
	 * tests of the partial and paged reads with few elections.
	 * @param readInFullUpTo up to how many elections every read is whole
	 * @param rescannedPerRound how many elections a partial read reads again by key
	 * @param page most elections per page of a whole read
	 */
	void limits(int readInFullUpTo, int rescannedPerRound, int page) {
		this.readInFullUpTo = readInFullUpTo;
		this.rescannedPerRound = rescannedPerRound;
		this.page = page;
		this.views.clear();
	}

	/**
	 * Tell the views that these elections' rows are being written: each reads them by key
	 * at its next read, whether the change applied or not.
	 */
	void changing(Collection<String> elections) {
		this.views.values().forEach((view) -> view.changing(elections));
	}

	/** The view of a node id and instance, new if it has none. */
	LeaseView view(String nodeId, String instanceId) {
		return this.views.computeIfAbsent(List.of(nodeId, instanceId),
				(key) -> new LeaseView(this.readInFullUpTo, this.rescannedPerRound, this.page));
	}

	/** The node's candidacies may change hands: its views are read whole again. */
	void invalidate(String nodeId) {
		this.views.forEach((key, view) -> {
			if (key.get(0).equals(nodeId)) {
				view.invalidate();
			}
		});
	}

	/** Forget the view of a node id and instance. */
	void remove(String nodeId, String instanceId) {
		this.views.remove(List.of(nodeId, instanceId));
	}

	/**
	 * Whether a read failed because it waited too long rather than because the server is
	 * out of reach: the client's socket timeout or query timeout, or the server's own
	 * limits on the statement or on the causal wait (1205, 1317, 1969).
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

}
