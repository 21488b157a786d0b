package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseState;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

import static io.github.dbleader.election.jdbc.FencedTransactionTemplate.inTransaction;

/**
 * Changes of holder of leases, one at a time and batched: creation, take-over, hand-over,
 * yield and re-acquire, each with the lease's fence row in the same transaction (I5), and
 * the operators' requests that the holder carries out. Every change tells the views first
 * that the rows are being written.
 */
final class HolderChanges {

	private final JdbcStore store;

	private final Supplier<LeaseStatements> statements;

	private final ViewReads views;

	private final NodeSessions sessions;

	private final RefusedRows refusedRows;

	/**
	 * Create the changes.
	 * @param store where the statements go
	 * @param statements the statements for the server that answers
	 * @param views the views, told of the rows being written
	 * @param sessions the sessions that acquired leases live on
	 * @param refusedRows the rows the database refused
	 */
	HolderChanges(JdbcStore store, Supplier<LeaseStatements> statements, ViewReads views, NodeSessions sessions,
			RefusedRows refusedRows) {
		this.store = store;
		this.statements = statements;
		this.views = views;
		this.sessions = sessions;
		this.refusedRows = refusedRows;
	}

	boolean create(String election, String nodeId, Duration lease) {
		this.views.changing(List.of(election));
		try {
			return inTransaction(this.store.transactions(), () -> {
				this.store.jdbc()
					.update(this.statements.get().create, election, nodeId, lease.toMillis(),
							this.sessions.instanceOf(nodeId));
				// Written at once, not updated first: an update that finds no row locks
				// the gap where the row would go, and two nodes creating elections at the
				// same time deadlock on each other's gap (InnoDB).
				this.store.jdbc().update(this.store.platformStatements().writeFence, election);
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
	 * first is rolled back whole, as the single-row create is, and left for the next
	 * round's read: a row that existed before this call is never taken for one it
	 * created. A chunk that fails for a row the database refuses otherwise (a name that
	 * the table cannot hold, or takes for another's) is halved until that row is alone:
	 * the others are created, and the refused one is reported once at WARN and sent on
	 * its own from then on.
	 */
	List<LeaseState> createAll(String nodeId, List<String> elections, Duration lease) {
		List<String> sorted = elections.stream().sorted().distinct().toList();
		this.views.changing(sorted);
		List<String> batched = new ArrayList<>(sorted.size());
		List<String> alone = new ArrayList<>();
		this.refusedRows.split(this.store.tables().leaseTable(), sorted, batched, alone);
		List<LeaseState> created = new ArrayList<>();
		for (int from = 0; from < batched.size(); from += LeaseRows.MAX_ROWS_PER_UPDATE) {
			created.addAll(create(nodeId,
					batched.subList(from, Math.min(batched.size(), from + LeaseRows.MAX_ROWS_PER_UPDATE)),
					lease.toMillis()));
		}
		alone.forEach((election) -> created.addAll(create(nodeId, List.of(election), lease.toMillis())));
		return created;
	}

	/**
	 * Create one chunk of leases, or the part of it that the database does not refuse.
	 */
	private List<LeaseState> create(String nodeId, List<String> chunk, long leaseMillis) {
		String table = this.store.tables().leaseTable();
		try {
			List<LeaseState> created = inTransaction(this.store.transactions(),
					() -> new BatchedHolderChange(this.statements.get()).create(this.store.jdbc(), nodeId,
							this.sessions.instanceOf(nodeId), chunk, leaseMillis));
			this.refusedRows.accepted(table, chunk);
			return created;
		}
		catch (PessimisticLockingFailureException ex) {
			// Rolled back: none of the chunk's leases created. A deadlock, or a
			// certification conflict on Galera: two other nodes raced for a lease that a
			// third one's rolled-back batch had inserted.
			return List.of();
		}
		catch (DataAccessException ex) {
			if (!RefusedRows.refusesRow(ex)) {
				throw ex;
			}
			if (ex instanceof DuplicateKeyException) {
				if (!this.refusedRows.namesCompareInexactly()) {
					// Another node created one of them first (or, on H2, is creating it).
					return List.of();
				}
				// Tables that take names differing only in case for one: a creation
				// first, or such a name, of this chunk or of one created before?
				List<String> stored = storedNames(chunk);
				if (chunk.stream().anyMatch(stored::contains)) {
					return List.of();
				}
				if (chunk.size() == 1) {
					this.refusedRows.refused(table, chunk.get(0), ex, stored);
					return List.of();
				}
			}
			else if (chunk.size() == 1) {
				this.refusedRows.refused(table, chunk.get(0), ex, List.of());
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
		return this.store.jdbc()
			.queryForList(this.store.platformStatements().storedNames.render(elections.size()), String.class,
					elections.toArray());
	}

	/**
	 * Take the lease over in one transaction: first the write of its session's row, if
	 * the follower saw it with one, then the lease row and its fence row.
	 */
	boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease) {
		long millis = lease.toMillis();
		boolean withSession = !sessionOf(observed).isEmpty();
		boolean ended = endedSession(observed);
		return changeHolder(election, () -> {
			if (withSession && takeSessions(List.of(observed)).isEmpty()) {
				return 0;
			}
			List<Object> args = new ArrayList<>(Arrays.asList(nodeId, millis, this.sessions.instanceOf(nodeId),
					election, nodeId, millis, observed.version(), nodeId, millis));
			if (ended) {
				args.add(observed.holderVersion());
			}
			LeaseStatements statements = this.statements.get();
			return this.store.jdbc()
				.update(withSession ? statements.takeOver
						: ended ? statements.takeOverFromEndedSession : statements.takeOverWithoutSession,
						args.toArray());
		});
	}

	/**
	 * Write the rows of the sessions that the observations saw, where each is still at
	 * the version seen and has run out: one statement per session, in node id order (the
	 * same order in every transaction, so that two take-overs wait rather than deadlock),
	 * before any lease row.
	 * @return the sessions written, as holder and version
	 */
	private Set<LeaseObservation> takeSessions(Collection<LeaseObservation> observations) {
		Set<LeaseObservation> written = new HashSet<>();
		Set<LeaseObservation> sessions = new TreeSet<>(
				Comparator.comparing(LeaseObservation::holder).thenComparingLong(LeaseObservation::holderVersion));
		observations.forEach((observed) -> sessions.addAll(sessionOf(observed)));
		String takeSession = this.store.platformStatements().takeSession;
		sessions.forEach((session) -> {
			if (this.store.jdbc().update(takeSession, session.holder(), session.holderVersion()) == 1) {
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
	 * take-over's conditions, the version of an expired one given as an (election,
	 * version) pair; a vacant one is taken at any version, as there.
	 */
	List<LeaseState> takeOverAll(String nodeId, Map<String, LeaseObservation> observed, Duration lease) {
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
				(sessionOf(observation).isEmpty() ? withoutSessions : fromSessions).put(election,
						observation.version());
			}
		});
		List<Object> assignments = Arrays.asList(nodeId, millis, this.sessions.instanceOf(nodeId));
		LeaseStatements statements = this.statements.get();
		List<LeaseState> taken = new ArrayList<>(
				changeAll(fromSessions, new BatchedHolderChange.Change(statements.lockTakeable, statements.takeOverAll,
						assignments, List.of(nodeId, millis), List.of(nodeId, millis)), (chunk) -> {
							// The sessions first, then only the leases whose session was
							// written.
							Set<LeaseObservation> written = takeSessions(
									chunk.keySet().stream().map(observed::get).toList());
							chunk.keySet()
								.removeIf((election) -> !written.containsAll(sessionOf(observed.get(election))));
						}));
		taken.addAll(changeAll(withoutSessions, new BatchedHolderChange.Change(statements.lockTakeableWithoutSession,
				statements.takeOverAllWithoutSession, assignments, List.of(nodeId, millis), List.of(nodeId, millis)),
				(chunk) -> {
				}));
		// A session that ended at the version watched: nothing can renew it any more.
		fromEndedSessions.forEach((sessionVersion,
				rows) -> taken.addAll(changeAll(rows,
						new BatchedHolderChange.Change(statements.lockTakeableFromEndedSession,
								statements.takeOverAllFromEndedSession, assignments, List.of(nodeId, millis),
								List.of(nodeId, millis, sessionVersion)),
						(chunk) -> {
						})));
		return taken;
	}

	/**
	 * Hand the listed leases over as {@link #takeOverAll} takes them, each with its own
	 * term, only where the server that answers is the one named: a transaction's
	 * statements all go to one server, so the server its first statement names is the one
	 * its changes reach.
	 */
	List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease,
			@Nullable String decidedOn) {
		LeaseStatements statements = this.statements.get();
		// No session: the node that gets the lease re-acquires it under a term of its
		// own.
		return changeAll(terms, new BatchedHolderChange.Change(statements.lockHeld, statements.handOverAll,
				Arrays.asList(toNodeId, lease.toMillis(), null), List.of(fromNodeId), List.of()), (chunk) -> {
					if (decidedOn != null && !decidedOn
						.equals(this.store.jdbc().queryForObject(statements.answeringServer, String.class))) {
						chunk.clear();
					}
				});
	}

	/**
	 * Give the listed leases up as {@link #takeOverAll} takes them, each with its own
	 * term.
	 */
	List<LeaseState> yieldAll(String nodeId, Map<String, Long> terms) {
		LeaseStatements statements = this.statements.get();
		return changeAll(terms, new BatchedHolderChange.Change(statements.lockHeld, statements.yieldAll,
				List.of(nodeId), List.of(nodeId), List.of()), (chunk) -> {
				});
	}

	/**
	 * Reacquire the listed leases as {@link #takeOverAll} takes them, each with its own
	 * term.
	 */
	List<LeaseState> reacquireAll(String nodeId, Map<String, Long> terms, Duration lease) {
		LeaseStatements statements = this.statements.get();
		return changeAll(terms,
				new BatchedHolderChange.Change(statements.lockHeld, statements.reacquireAll,
						Arrays.asList(lease.toMillis(), this.sessions.instanceOf(nodeId)), List.of(nodeId), List.of()),
				(chunk) -> {
				});
	}

	/**
	 * Change the listed rows in one transaction per chunk, in key order, so that the rows
	 * of one batch are locked in the order of every other's.
	 */
	private List<LeaseState> changeAll(Map<String, Long> rows, BatchedHolderChange.Change change,
			Consumer<Map<String, Long>> first) {
		List<Map.Entry<String, Long>> sorted = List.copyOf(new TreeMap<>(rows).entrySet());
		this.views.changing(rows.keySet());
		List<LeaseState> changed = new ArrayList<>();
		for (int from = 0; from < sorted.size(); from += LeaseRows.MAX_ROWS_PER_UPDATE) {
			Map<String, Long> chunk = new LinkedHashMap<>();
			sorted.subList(from, Math.min(sorted.size(), from + LeaseRows.MAX_ROWS_PER_UPDATE))
				.forEach((row) -> chunk.put(row.getKey(), row.getValue()));
			try {
				changed.addAll(inTransaction(this.store.transactions(), () -> {
					first.accept(chunk);
					return chunk.isEmpty() ? List.of()
							: new BatchedHolderChange(this.statements.get()).run(this.store.jdbc(), change, chunk);
				}));
			}
			catch (BatchedHolderChange.NothingChanged ex) {
				// Rolled back: none of the chunk's leases changed.
			}
		}
		return changed;
	}

	boolean handOver(String election, String fromNodeId, long term, String toNodeId, Duration lease) {
		return changeHolder(election, () -> this.store.jdbc()
			.update(this.statements.get().handOver, toNodeId, lease.toMillis(), null, election, fromNodeId, term));
	}

	boolean yield(String election, String nodeId, long term) {
		return changeHolder(election,
				() -> this.store.jdbc().update(this.store.platformStatements().yield, nodeId, election, nodeId, term));
	}

	boolean reacquire(String election, String nodeId, long term, Duration lease) {
		return changeHolder(election,
				() -> this.store.jdbc()
					.update(this.statements.get().reacquire, lease.toMillis(), this.sessions.instanceOf(nodeId),
							election, nodeId, term));
	}

	/**
	 * Change the holder of a lease and, in the same transaction, its fence row. Updating
	 * the fence row waits for fenced transactions, which hold it in share mode (I5), for
	 * at most half the statement timeout, a limit the server enforces
	 * ({@link SqlDialect#boundFenceWait}): the failed change then rolls back and leaves
	 * the lease row to the batches, which skip the busy fence.
	 * @param election election name
	 * @param change the statement on the lease row, returning the rows it changed
	 * @return whether the lease row changed
	 */
	private boolean changeHolder(String election, IntSupplier change) {
		this.views.changing(List.of(election));
		LeaseStatements statements = this.store.platformStatements();
		JdbcTemplate jdbc = this.store.jdbc();
		return inTransaction(this.store.transactions(), () -> {
			if (change.getAsInt() != 1) {
				return false;
			}
			if (statements.boundFenceWait != null) {
				jdbc.queryForList(statements.boundFenceWait, election);
			}
			if (jdbc.update(statements.updateFence, election, election, election) == 0) {
				jdbc.update(statements.insertFence, election);
			}
			return true;
		});
	}

	boolean requestHandover(String election, String nodeId) {
		this.views.changing(List.of(election));
		return OutsideCallerTransaction.run(
				() -> this.store.jdbc().update(this.store.platformStatements().requestHandover, nodeId, election) == 1);
	}

	/**
	 * Record the requests in one statement per target and chunk of
	 * {@value LeaseRows#MAX_ROWS_PER_UPDATE}, each row by key and only while this node
	 * holds it.
	 */
	int requestHandoverAll(String holderId, Map<String, String> targets) {
		this.views.changing(targets.keySet());
		Map<String, List<String>> byTarget = new TreeMap<>();
		new TreeMap<>(targets)
			.forEach((election, target) -> byTarget.computeIfAbsent(target, (key) -> new ArrayList<>()).add(election));
		int recorded = 0;
		for (Map.Entry<String, List<String>> target : byTarget.entrySet()) {
			recorded += this.store.updateListed(this.store.platformStatements().requestHandoverAll,
					List.of(target.getKey(), holderId), target.getValue(), LeaseRows.MAX_ROWS_PER_UPDATE);
		}
		return recorded;
	}

	/**
	 * Record the requests in one statement per chunk of
	 * {@value LeaseRows#MAX_ROWS_PER_UPDATE}, each row by key and only while the holder
	 * holds it with no request pending.
	 */
	int askToLead(String nodeId, String holderId, Collection<String> elections) {
		this.views.changing(elections);
		return this.store.updateListed(this.store.platformStatements().askToLead, List.of(nodeId, holderId),
				new ArrayList<>(new TreeSet<>(elections)), LeaseRows.MAX_ROWS_PER_UPDATE);
	}

	boolean requestReelection(String election) {
		this.views.changing(List.of(election));
		return OutsideCallerTransaction
			.run(() -> this.store.jdbc().update(this.store.platformStatements().requestReelection, election) == 1);
	}

}
