package io.github.dbleader.election;

import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A {@link LeaseRepository} in memory with the same semantics as the SQL statements of
 * {@code JdbcLeaseRepository}, on a database clock the test controls separately from the
 * nodes' monotonic clocks. Failures can be injected: a statement that fails before it
 * reaches the database, one that is applied but whose answer is lost, or writes that time
 * out while reads answer.
 */
final class InMemoryLeaseDatabase implements LeaseRepository {

	private final Map<String, Row> rows = new HashMap<>();

	private final Map<String, Map<String, CandidateRow>> candidates = new HashMap<>();

	/** The rows of the nodes table, by node id: the sessions. */
	private final Map<String, NodeRow> nodes = new HashMap<>();

	/**
	 * The instance whose heartbeat last held each node id's row, as the JDBC repository
	 * keeps it.
	 */
	private final Map<String, String> sessions = new HashMap<>();

	private long databaseMillis = 1_700_000_000_000L;

	private String serverIdentity = "server-1";

	private boolean unreachable;

	private boolean writesStall;

	private boolean writesElsewhere;

	private Set<String> loseAnswersOf = Set.of();

	private @Nullable String failNext;

	private Set<String> busyFences = Set.of();

	/**
	 * The node rows the last purge found stale, with their versions (one purger's
	 * memory).
	 */
	private Map<String, Long> staleAtLastPurge = Map.of();

	/**
	 * Fenced transactions open on each election's fence row (share locks), by election.
	 */
	private final Map<String, Integer> fenceHolds = new HashMap<>();

	/**
	 * Told of each fence hold as it starts, with its limit and what ends it before the
	 * work does.
	 */
	private BiConsumer<Duration, Runnable> fenceHoldStarted = (maxHoldTime, end) -> {
	};

	private final List<String> statements = new ArrayList<>();

	private Runnable duringStatement = () -> {
	};

	private Runnable beforeRead = () -> {
	};

	void advanceDatabaseClock(Duration duration) {
		this.databaseMillis += duration.toMillis();
	}

	/**
	 * Set the database clock (epoch milliseconds), as a simulation does before each
	 * statement.
	 */
	void setDatabaseMillis(long databaseMillis) {
		this.databaseMillis = databaseMillis;
	}

	long databaseMillis() {
		return this.databaseMillis;
	}

	String serverIdentity() {
		return this.serverIdentity;
	}

	/**
	 * Whether a change of holder of the election would wait for its fence row: fenced
	 * work holds it, or a test said so.
	 * @param election the election
	 * @return {@code true} if busy
	 */
	/**
	 * Let a simulation end a fence hold when the server would drop its session, once the
	 * transaction has been open for its maximum hold time.
	 * @param listener told of each hold as it starts: its maximum hold time, and what
	 * ends it
	 */
	synchronized void onFenceHold(BiConsumer<Duration, Runnable> listener) {
		this.fenceHoldStarted = listener;
	}

	boolean fenceBusy(String election) {
		return this.busyFences.contains(election) || this.fenceHolds.getOrDefault(election, 0) > 0;
	}

	/**
	 * Run a statement as one process's repository does, which remembers the instance
	 * whose heartbeat last held the node's row through it and writes that instance into
	 * the leases it acquires (not the instance that last refreshed the row through any
	 * repository).
	 * @param nodeId the node
	 * @param instanceId the caller's remembered instance, or {@code null}
	 * @param statement the statement
	 * @return its answer
	 */
	<T> T asSession(String nodeId, @Nullable String instanceId, Supplier<T> statement) {
		String shared = this.sessions.get(nodeId);
		if (instanceId != null) {
			this.sessions.put(nodeId, instanceId);
		}
		else {
			this.sessions.remove(nodeId);
		}
		try {
			return statement.get();
		}
		finally {
			if (shared != null) {
				this.sessions.put(nodeId, shared);
			}
			else {
				this.sessions.remove(nodeId);
			}
		}
	}

	/**
	 * A copy of every row, as a replica that applied the writes up to now holds them:
	 * what a failover to it finds. Open fenced transactions and injected failures are not
	 * copied.
	 * @return the copy
	 */
	InMemoryLeaseDatabase copy() {
		InMemoryLeaseDatabase copy = new InMemoryLeaseDatabase();
		this.rows.forEach((election, row) -> copy.rows.put(election, row.copy()));
		this.candidates.forEach((election, rows) -> {
			Map<String, CandidateRow> copied = new HashMap<>();
			rows.forEach((node, row) -> copied.put(node, row.copy()));
			copy.candidates.put(election, copied);
		});
		this.nodes.forEach((node, row) -> copy.nodes.put(node, row.copy()));
		copy.sessions.putAll(this.sessions);
		copy.databaseMillis = this.databaseMillis;
		copy.serverIdentity = this.serverIdentity;
		return copy;
	}

	void setUnreachable(boolean unreachable) {
		this.unreachable = unreachable;
	}

	/**
	 * Make every write time out while reads still answer, as a Galera cluster does while
	 * it evicts a dead node.
	 */
	void setWritesStall(boolean writesStall) {
		this.writesStall = writesStall;
	}

	/**
	 * Answer refreshes of a node's row as applied without applying them, as a server
	 * other than the one that answers the reads would.
	 */
	void setWritesElsewhere(boolean writesElsewhere) {
		this.writesElsewhere = writesElsewhere;
	}

	/**
	 * Apply these writes but throw as if the connection broke before the answer arrived.
	 */
	void loseAnswersOf(String... statements) {
		this.loseAnswersOf = Set.of(statements);
	}

	/**
	 * Hold the fence rows of these elections as fenced work does: batched changes of
	 * holder leave those leases unapplied, single-row ones wait for the fence and fail
	 * with a timeout, as the JDBC statements do.
	 */
	void setFencesBusy(String... elections) {
		this.busyFences = Set.of(elections);
	}

	/** Make the next statement of that name fail before it reaches the database. */
	void failNext(String statement) {
		this.failNext = statement;
	}

	void failOver(String newServerIdentity) {
		this.serverIdentity = newServerIdentity;
	}

	/** Run something (e.g. move a clock) while each statement is under way. */
	void setDuringStatement(Runnable duringStatement) {
		this.duringStatement = duringStatement;
	}

	/** Run something (e.g. switch the server) before each read. */
	void setBeforeRead(Runnable beforeRead) {
		this.beforeRead = beforeRead;
	}

	List<String> statements() {
		return this.statements;
	}

	@Nullable Row row(String election) {
		return this.rows.get(election);
	}

	@Override
	public Optional<LeaseState> find(String election) {
		return read("find", () -> Optional.ofNullable(this.rows.get(election)).map((row) -> state(election, row)));
	}

	@Override
	public boolean create(String election, String nodeId, Duration lease) {
		return write("create", () -> {
			if (this.rows.containsKey(election)) {
				return false;
			}
			createRow(election, nodeId, lease);
			return true;
		});
	}

	/** One statement for the whole batch, all or none, as the database's transaction. */
	@Override
	public List<LeaseState> createAll(String nodeId, List<String> elections, Duration lease) {
		return write("createAll", () -> {
			if (elections.stream().anyMatch(this.rows::containsKey)) {
				return List.of();
			}
			elections.forEach((election) -> createRow(election, nodeId, lease));
			return elections.stream().map((election) -> state(election, this.rows.get(election))).toList();
		});
	}

	private void createRow(String election, String nodeId, Duration lease) {
		Row row = new Row();
		row.leaderId = nodeId;
		row.term = this.databaseMillis;
		row.version = 1;
		row.acquiredAt = row.renewedAt = this.databaseMillis;
		row.expiresAt = this.databaseMillis + lease.toMillis();
		row.serverIdentity = this.serverIdentity;
		row.leaderInstance = this.sessions.get(nodeId);
		this.rows.put(election, row);
	}

	@Override
	public List<LeaseState> findAll(String nodeId, String instanceId) {
		return read("findAll",
				() -> ownCandidacies(nodeId, instanceId).stream()
					.filter(this.rows::containsKey)
					.map((election) -> state(election, this.rows.get(election)))
					.toList());
	}

	@Override
	public boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease) {
		return write("takeOver", () -> waitForFence(election) && takeOverRow(election, nodeId, observed, lease));
	}

	/** One statement for the whole batch, each row under the single-row conditions. */
	@Override
	public List<LeaseState> takeOverAll(String nodeId, Map<String, LeaseObservation> observed, Duration lease) {
		return write("takeOverAll", () -> {
			List<LeaseState> taken = new ArrayList<>();
			observed.forEach((election, observation) -> {
				if (!fenceBusy(election) && takeOverRow(election, nodeId, observation, lease)) {
					taken.add(state(election, this.rows.get(election)));
				}
			});
			return taken;
		});
	}

	private boolean takeOverRow(String election, String nodeId, LeaseObservation observed, Duration lease) {
		Row row = this.rows.get(election);
		if (row == null) {
			return false;
		}
		long now = this.databaseMillis;
		String holder = observed.holder();
		NodeRow node = (holder != null) ? this.nodes.get(holder) : null;
		if (holder != null && observed.holderVersion() >= 0 && !observed.sessionEnded()) {
			// The session's row first, at the version watched and run out, as the JDBC
			// statements do.
			if (node == null || node.version != observed.holderVersion() || node.expiresAt > now) {
				return false;
			}
		}
		else if (session(row) != null) {
			// Seen without a live session, or with one that ended: it must still have
			// none.
			return false;
		}
		else if (observed.sessionEnded() && (node == null || !Objects.equals(node.previousInstance, row.leaderInstance)
				|| node.previousVersion != observed.holderVersion())) {
			return false;
		}
		long expiry = expiry(row);
		boolean vacant = row.leaderId == null
				&& (row.yieldedBy == null || !row.yieldedBy.equals(nodeId) || row.expiresAt + lease.toMillis() <= now);
		boolean expired = row.leaderId != null && row.version == observed.version() && expiry <= now;
		boolean notHandedToOthers = row.handoverTo == null || row.handoverTo.equals(nodeId)
				|| expiry + lease.toMillis() <= now;
		if (!(vacant || expired) || !notHandedToOthers) {
			return false;
		}
		row.leaderId = nodeId;
		newTerm(row, lease, this.sessions.get(nodeId));
		return true;
	}

	@Override
	public boolean handOver(String election, String fromNodeId, long term, String toNodeId, Duration lease) {
		return write("handOver",
				() -> waitForFence(election) && handOverRow(election, fromNodeId, term, toNodeId, lease));
	}

	/**
	 * One statement for the whole batch, each row under the single-row conditions; busy
	 * fences are skipped.
	 */
	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease) {
		return write("handOverAll", () -> {
			List<LeaseState> handed = new ArrayList<>();
			terms.forEach((election, term) -> {
				if (!fenceBusy(election) && handOverRow(election, fromNodeId, term, toNodeId, lease)) {
					handed.add(state(election, this.rows.get(election)));
				}
			});
			return handed;
		});
	}

	/**
	 * As JDBC does: nothing where another server answers than the one the decision read.
	 */
	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease,
			@Nullable String decidedOn) {
		if (decidedOn != null && !decidedOn.equals(this.serverIdentity)) {
			return write("handOverAll", List::of);
		}
		return handOverAll(fromNodeId, terms, toNodeId, lease);
	}

	private boolean handOverRow(String election, String fromNodeId, long term, String toNodeId, Duration lease) {
		Row row = this.rows.get(election);
		if (row == null || !fromNodeId.equals(row.leaderId) || row.term != term) {
			return false;
		}
		row.leaderId = toNodeId;
		newTerm(row, lease, null);
		return true;
	}

	@Override
	public boolean yield(String election, String nodeId, long term) {
		return write("yield", () -> waitForFence(election) && yieldRow(election, nodeId, term));
	}

	/** One statement for the whole batch, each row under the single-row conditions. */
	@Override
	public List<LeaseState> yieldAll(String nodeId, Map<String, Long> terms) {
		return write("yieldAll", () -> {
			List<LeaseState> yielded = new ArrayList<>();
			terms.forEach((election, term) -> {
				if (!fenceBusy(election) && yieldRow(election, nodeId, term)) {
					yielded.add(state(election, this.rows.get(election)));
				}
			});
			return yielded;
		});
	}

	private boolean yieldRow(String election, String nodeId, long term) {
		Row row = this.rows.get(election);
		if (row == null || !nodeId.equals(row.leaderId) || row.term != term) {
			return false;
		}
		row.leaderId = null;
		row.leaderInstance = null;
		row.version++;
		row.expiresAt = this.databaseMillis;
		row.handoverTo = null;
		row.reelectionRequested = false;
		row.yieldedBy = nodeId;
		return true;
	}

	@Override
	public boolean reacquire(String election, String nodeId, long term, Duration lease) {
		return write("reacquire", () -> waitForFence(election) && reacquireRow(election, nodeId, term, lease));
	}

	/**
	 * One statement for the whole batch, each row under the single-row conditions; busy
	 * fences are skipped.
	 */
	@Override
	public List<LeaseState> reacquireAll(String nodeId, Map<String, Long> terms, Duration lease) {
		return write("reacquireAll", () -> {
			List<LeaseState> reacquired = new ArrayList<>();
			terms.forEach((election, term) -> {
				if (!fenceBusy(election) && reacquireRow(election, nodeId, term, lease)) {
					reacquired.add(state(election, this.rows.get(election)));
				}
			});
			return reacquired;
		});
	}

	private boolean reacquireRow(String election, String nodeId, long term, Duration lease) {
		Row row = this.rows.get(election);
		if (row == null || !nodeId.equals(row.leaderId) || row.term != term) {
			return false;
		}
		// A request recorded after the holder decided stays, as the SQL keeps it.
		String handoverTo = nodeId.equals(row.handoverTo) ? null : row.handoverTo;
		boolean reelection = row.reelectionRequested;
		newTerm(row, lease, this.sessions.get(nodeId));
		row.handoverTo = handoverTo;
		row.reelectionRequested = reelection;
		return true;
	}

	/**
	 * A single-row change of holder waits for the fenced work that holds the election's
	 * fence row, as the JDBC statement does: here the wait outlasts the statement
	 * timeout, so the statement fails with the timeout and changes nothing (a simulation
	 * waits for the fence in simulated time first, and only a fence still busy at the
	 * timeout reaches this).
	 */
	private boolean waitForFence(String election) {
		if (fenceBusy(election)) {
			throw new IllegalStateException("lock wait on the fence row of '" + election + "' timed out",
					new SQLTimeoutException("statement timed out"));
		}
		return true;
	}

	@Override
	public boolean requestHandover(String election, String nodeId) {
		return write("requestHandover", () -> {
			Row row = this.rows.get(election);
			if (row == null) {
				return false;
			}
			row.handoverTo = nodeId;
			row.reelectionRequested = false;
			row.version++;
			return true;
		});
	}

	/** Only where the node still holds the lease, as the JDBC statement records them. */
	@Override
	public int requestHandoverAll(String holderId, Map<String, String> targets) {
		return write("requestHandoverAll", () -> {
			int recorded = 0;
			for (Map.Entry<String, String> target : targets.entrySet()) {
				Row row = this.rows.get(target.getKey());
				if (row != null && holderId.equals(row.leaderId)) {
					row.handoverTo = target.getValue();
					row.reelectionRequested = false;
					row.version++;
					recorded++;
				}
			}
			return recorded;
		});
	}

	/**
	 * Only where the holder still holds the lease and no request is pending, as the JDBC
	 * statement records them.
	 */
	@Override
	public int askToLead(String nodeId, String holderId, Collection<String> elections) {
		return write("askToLead", () -> {
			int recorded = 0;
			for (String election : elections) {
				Row row = this.rows.get(election);
				if (row != null && holderId.equals(row.leaderId) && row.handoverTo == null
						&& !row.reelectionRequested) {
					row.handoverTo = nodeId;
					row.version++;
					recorded++;
				}
			}
			return recorded;
		});
	}

	@Override
	public boolean requestReelection(String election) {
		return write("requestReelection", () -> {
			Row row = this.rows.get(election);
			if (row == null || row.leaderId == null) {
				return false;
			}
			row.reelectionRequested = true;
			row.handoverTo = null;
			row.version++;
			return true;
		});
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, Duration staleAfter, long inheritVersion) {
		return heartbeat(nodeId, instanceId, "", staleAfter, inheritVersion);
	}

	/**
	 * The rank goes into a row created or taken over, as the JDBC statements write it.
	 */
	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, String rank, Duration staleAfter,
			long inheritVersion) {
		return write("heartbeat", () -> {
			NodeRow row = this.nodes.get(nodeId);
			Candidacy candidacy;
			long expiresAt = this.databaseMillis + staleAfter.toMillis();
			if (row != null && row.instanceId.equals(instanceId)) {
				if (this.writesElsewhere) {
					return Candidacy.HELD;
				}
				row.lastSeen = this.databaseMillis;
				row.version++;
				row.expiresAt = expiresAt;
				this.sessions.put(nodeId, instanceId);
				return Candidacy.HELD;
			}
			this.sessions.remove(nodeId, instanceId);
			if (row == null) {
				candidacy = Candidacy.CREATED;
			}
			else if (inheritVersion >= 0 && row.version == inheritVersion && stale(row, staleAfter)) {
				candidacy = Candidacy.INHERITED;
			}
			else {
				return Candidacy.IN_USE;
			}
			NodeRow taken = new NodeRow(instanceId, this.databaseMillis, (row != null) ? row.version + 1 : 1,
					expiresAt);
			taken.rank = rank;
			if (row != null) {
				// The earlier instance's session ends at its last version.
				taken.previousInstance = row.instanceId;
				taken.previousVersion = row.version;
			}
			this.nodes.put(nodeId, taken);
			this.sessions.put(nodeId, instanceId);
			// Earlier instances' candidacies become this one's, counted from now: a
			// restarted process is a new member, as the JDBC claim sets first_seen.
			this.candidates.values()
				.forEach((rows) -> rows.computeIfPresent(nodeId,
						(key, candidate) -> candidate.instanceId.equals(instanceId) ? candidate
								: new CandidateRow(instanceId, this.databaseMillis)));
			return candidacy;
		});
	}

	private boolean stale(NodeRow row, Duration staleAfter) {
		return row.expiresAt <= this.databaseMillis && row.lastSeen <= this.databaseMillis - staleAfter.toMillis();
	}

	@Override
	public @Nullable NodeRowSighting nodeRow(String nodeId, Duration staleAfter) {
		return read("nodeRow", () -> {
			NodeRow row = this.nodes.get(nodeId);
			return (row != null) ? new NodeRowSighting(row.version, stale(row, staleAfter)) : null;
		});
	}

	@Override
	public void removeCandidate(String election, String nodeId, String instanceId) {
		write("removeCandidate", () -> {
			Map<String, CandidateRow> rows = this.candidates.getOrDefault(election, Map.of());
			CandidateRow row = rows.get(nodeId);
			return row != null && row.instanceId.equals(instanceId) && rows.remove(nodeId) != null;
		});
	}

	@Override
	public void join(String nodeId, String instanceId, Collection<String> elections) {
		write("join", () -> {
			NodeRow node = this.nodes.get(nodeId);
			if (node != null && !node.instanceId.equals(instanceId)) {
				// Another instance holds the node id: its take-over made the candidacies
				// its own.
				return true;
			}
			for (String election : elections) {
				this.candidates.computeIfAbsent(election, (key) -> new HashMap<>())
					.putIfAbsent(nodeId, new CandidateRow(instanceId, this.databaseMillis));
			}
			return true;
		});
	}

	private Set<String> ownCandidacies(String nodeId, String instanceId) {
		Set<String> own = new TreeSet<>();
		this.candidates.forEach((election, rows) -> {
			CandidateRow row = rows.get(nodeId);
			if (row != null && row.instanceId.equals(instanceId)) {
				own.add(election);
			}
		});
		return own;
	}

	@Override
	public void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections) {
		write("leaveOtherElections", () -> {
			this.candidates.forEach((election, rows) -> {
				if (!elections.contains(election)) {
					rows.computeIfPresent(nodeId, (key, row) -> row.instanceId.equals(instanceId) ? null : row);
				}
			});
			return true;
		});
	}

	@Override
	public void removeCandidacies(String nodeId, String instanceId) {
		write("removeCandidacies", () -> {
			this.candidates.values()
				.forEach((rows) -> rows.computeIfPresent(nodeId,
						(key, row) -> row.instanceId.equals(instanceId) ? null : row));
			this.nodes.computeIfPresent(nodeId, (key, row) -> row.instanceId.equals(instanceId) ? null : row);
			this.sessions.remove(nodeId, instanceId);
			return true;
		});
	}

	@Override
	public void purge(Duration maxAge) {
		this.staleAtLastPurge = purge(maxAge, this.staleAtLastPurge);
	}

	/**
	 * Purge as one node's repository does, with that node's memory of its last purge.
	 * @param maxAge how long a row must have been unused
	 * @param staleBefore the node rows that node's last purge found stale, with their
	 * versions
	 * @return the node rows this purge found stale, for that node's next purge
	 */
	Map<String, Long> purge(Duration maxAge, Map<String, Long> staleBefore) {
		return write("purge", () -> {
			long before = this.databaseMillis - maxAge.toMillis();
			// At the second purge that finds a node's row stale at the same version, as
			// the JDBC purge does.
			Map<String, Long> stale = new HashMap<>();
			this.nodes.forEach((id, node) -> {
				if (node.lastSeen < before) {
					stale.put(id, node.version);
				}
			});
			Set<String> purged = new TreeSet<>();
			this.nodes.entrySet()
				.removeIf((node) -> Long.valueOf(node.getValue().version).equals(staleBefore.get(node.getKey()))
						&& node.getValue().lastSeen < before && purged.add(node.getKey()));
			// Every candidacy of the node ids deleted, and only those, as the JDBC purge
			// does.
			this.candidates.values().forEach((rows) -> rows.keySet().removeAll(purged));
			// By the lease row's own expiry, as the JDBC purge searches for them: a lease
			// that no candidate runs goes even while its holder's session lives. The
			// delete of its fence row waits for fenced work, as any change of its holder
			// does, and times out: that lease stays for a later purge.
			this.rows.entrySet()
				.removeIf((entry) -> entry.getValue().expiresAt < before
						&& this.candidates.getOrDefault(entry.getKey(), Map.of()).isEmpty()
						&& !fenceBusy(entry.getKey()));
			return stale;
		});
	}

	@Override
	public List<Candidate> liveCandidates(String election, Duration maxAge) {
		return read("liveCandidates",
				() -> this.candidates.getOrDefault(election, Map.of()).entrySet().stream().filter((entry) -> {
					NodeRow node = this.nodes.get(entry.getKey());
					return node != null && node.instanceId.equals(entry.getValue().instanceId)
							&& node.lastSeen > this.databaseMillis - maxAge.toMillis();
				})
					.map((entry) -> new Candidate(entry.getKey(), Instant.ofEpochMilli(entry.getValue().firstSeen),
							Instant.ofEpochMilli(this.nodes.get(entry.getKey()).lastSeen)))
					.sorted((a, b) -> a.nodeId().compareTo(b.nodeId()))
					.toList());
	}

	@Override
	public <T extends @Nullable Object> T runFenced(String election, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		return read("runFenced", () -> {
			Row row = this.rows.get(election);
			if (row == null || !nodeId.equals(row.leaderId) || row.term != term || expiry(row) <= this.databaseMillis) {
				throw new NotLeaderException(election, nodeId, "fence check failed");
			}
			// The share lock on the fence row is held until the transaction ends, or
			// until the server drops the session for holding it open too long.
			this.fenceHolds.merge(election, 1, Integer::sum);
			AtomicBoolean held = new AtomicBoolean(true);
			Runnable end = () -> {
				synchronized (this) {
					if (held.compareAndSet(true, false)) {
						this.fenceHolds.computeIfPresent(election, (key, holds) -> (holds > 1) ? holds - 1 : null);
					}
				}
			};
			this.fenceHoldStarted.accept(maxHoldTime, end);
			try {
				return callback.doInFence(term);
			}
			finally {
				end.run();
			}
		});
	}

	/** The lease's own expiry, or its live session's if later. */
	private long expiry(Row row) {
		NodeRow session = session(row);
		return (session != null) ? Math.max(row.expiresAt, session.expiresAt) : row.expiresAt;
	}

	/**
	 * The node row that keeps the lease alive: the holder's, naming the instance that
	 * acquired it.
	 */
	private @Nullable NodeRow session(Row row) {
		NodeRow node = (row.leaderId != null) ? this.nodes.get(row.leaderId) : null;
		return (node != null && node.instanceId.equals(row.leaderInstance)) ? node : null;
	}

	/** The lease as the JDBC repository's read answers it. */
	private LeaseState state(String election, Row row) {
		NodeRow session = session(row);
		long now = this.databaseMillis;
		long expiry = expiry(row);
		long renewedAt = (session != null && session.expiresAt > row.expiresAt) ? session.lastSeen : row.renewedAt;
		NodeRow node = (row.leaderId != null) ? this.nodes.get(row.leaderId) : null;
		boolean ended = session == null && node != null && row.leaderInstance != null
				&& row.leaderInstance.equals(node.previousInstance);
		return new LeaseState(election, row.leaderId, row.term, row.version, Instant.ofEpochMilli(row.acquiredAt),
				Instant.ofEpochMilli(renewedAt), Instant.ofEpochMilli(expiry), row.handoverTo, row.reelectionRequested,
				row.yieldedBy, expiry <= now, Objects.equals(this.serverIdentity, row.serverIdentity),
				Instant.ofEpochMilli(now), (session != null) ? session.version : ended ? node.previousVersion : -1,
				ended, this.serverIdentity, (session != null) ? session.rank : null);
	}

	private void newTerm(Row row, Duration lease, @Nullable String instanceId) {
		row.leaderInstance = instanceId;
		long now = this.databaseMillis;
		row.term = Math.max(row.term + 1, now);
		row.version++;
		row.acquiredAt = row.renewedAt = now;
		row.expiresAt = now + lease.toMillis();
		row.handoverTo = null;
		row.reelectionRequested = false;
		row.yieldedBy = null;
		row.serverIdentity = this.serverIdentity;
	}

	private <T> T read(String statement, Supplier<T> action) {
		this.statements.add(statement);
		this.beforeRead.run();
		if (this.unreachable) {
			throw new IllegalStateException("database unreachable");
		}
		return action.get();
	}

	private <T> T write(String statement, Supplier<T> action) {
		this.statements.add(statement);
		this.duringStatement.run();
		if (statement.equals(this.failNext)) {
			this.failNext = null;
			throw new IllegalStateException("statement timed out");
		}
		if (this.unreachable) {
			throw new IllegalStateException("database unreachable");
		}
		if (this.writesStall) {
			throw new IllegalStateException("write stalled", new SQLTimeoutException("statement timed out"));
		}
		T applied = action.get();
		if (this.loseAnswersOf.contains(statement)) {
			throw new IllegalStateException("connection lost after the statement was sent");
		}
		return applied;
	}

	private static final class NodeRow {

		private final String instanceId;

		private long lastSeen;

		private long version;

		private long expiresAt;

		private @Nullable String previousInstance;

		private long previousVersion;

		private String rank = "";

		NodeRow(String instanceId, long seen, long version, long expiresAt) {
			this.instanceId = instanceId;
			this.lastSeen = seen;
			this.version = version;
			this.expiresAt = expiresAt;
		}

		NodeRow copy() {
			NodeRow copy = new NodeRow(this.instanceId, this.lastSeen, this.version, this.expiresAt);
			copy.previousInstance = this.previousInstance;
			copy.previousVersion = this.previousVersion;
			copy.rank = this.rank;
			return copy;
		}

	}

	private static final class CandidateRow {

		private final String instanceId;

		private final long firstSeen;

		private long lastSeen;

		CandidateRow(String instanceId, long seen) {
			this.instanceId = instanceId;
			this.firstSeen = seen;
			this.lastSeen = seen;
		}

		CandidateRow copy() {
			CandidateRow copy = new CandidateRow(this.instanceId, this.firstSeen);
			copy.lastSeen = this.lastSeen;
			return copy;
		}

	}

	/**
	 * The lease row, its candidates and its holder's session as this server holds them,
	 * for a simulator's report of a violation.
	 */
	/**
	 * @return the instance that holds a node id's row, or {@code null} if it has none
	 */
	synchronized @Nullable String instanceOf(String nodeId) {
		NodeRow row = this.nodes.get(nodeId);
		return (row != null) ? row.instanceId : null;
	}

	synchronized String describe(String election) {
		Row row = this.rows.get(election);
		StringBuilder text = new StringBuilder((row != null) ? row.toString() : "no row");
		text.append(", candidates ").append(this.candidates.getOrDefault(election, Map.of()).keySet());
		NodeRow session = (row != null && row.leaderId != null) ? this.nodes.get(row.leaderId) : null;
		if (session != null) {
			text.append(", holder's session: instance ")
				.append(session.instanceId)
				.append(" expires at ")
				.append(session.expiresAt);
		}
		return text.toString();
	}

	static final class Row {

		@Nullable String leaderId;

		long term;

		long version;

		long acquiredAt;

		long renewedAt;

		long expiresAt;

		@Nullable String handoverTo;

		boolean reelectionRequested;

		@Nullable String yieldedBy;

		@Nullable String serverIdentity;

		/** The instance whose session keeps the lease alive, or {@code null}. */
		@Nullable String leaderInstance;

		@Override
		public String toString() {
			return "leader " + this.leaderId + " (instance " + this.leaderInstance + ") term " + this.term + " version "
					+ this.version + " expires at " + this.expiresAt + ", hand-over to " + this.handoverTo
					+ ", re-election " + this.reelectionRequested;
		}

		Row copy() {
			Row copy = new Row();
			copy.leaderId = this.leaderId;
			copy.term = this.term;
			copy.version = this.version;
			copy.acquiredAt = this.acquiredAt;
			copy.renewedAt = this.renewedAt;
			copy.expiresAt = this.expiresAt;
			copy.handoverTo = this.handoverTo;
			copy.reelectionRequested = this.reelectionRequested;
			copy.yieldedBy = this.yieldedBy;
			copy.serverIdentity = this.serverIdentity;
			copy.leaderInstance = this.leaderInstance;
			return copy;
		}

	}

}
