package io.github.dbleader.autoconfigure.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NodeRowSighting;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockState;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The lease and lock statements in memory, for tests: the election's state machine runs
 * unchanged on it, but no lease changes holder unless the test says so through
 * {@link LeaderElectionTestControl}. This node acquires a lease only when the test
 * granted it, never expires on its own, and a follower never takes a lease over. Locks
 * behave as on a database (free unless taken), and the test can have them taken
 * elsewhere.
 *
 * <p>
 * Fenced work runs in a transaction of the application's transaction manager, after the
 * same check as on a database: that this node still holds the term. A change of holder
 * while fenced work runs makes its commit fail (rolled back, {@link NotLeaderException}
 * or {@link LockNotHeldException}), as a Galera cluster's certification does; on a single
 * database server the change would wait for the commit instead. Either way, no fenced
 * work of an ended term is committed after the change.
 */
final class TestControlledLeaseRepository implements LeaseRepository, LockRepository {

	/** The node the test names when a lock is taken elsewhere. */
	static final String OTHER_NODE = "other-node";

	/**
	 * How long a lock taken elsewhere stays taken unless the test frees it: the whole
	 * test.
	 */
	private static final Duration HELD_ELSEWHERE_FOR = Duration.ofDays(365);

	private final Clock clock;

	private final Supplier<@Nullable PlatformTransactionManager> transactionManager;

	private final Map<String, LeaseRow> leases = new HashMap<>();

	/**
	 * Terms this node may acquire, by election: granted by the test, not acquired yet.
	 */
	private final Map<String, Long> grants = new HashMap<>();

	private final Set<String> joined = new HashSet<>();

	private final Map<String, LockRow> locks = new TreeMap<>();

	private final Set<String> nodesSeen = new HashSet<>();

	/** This node, as its heartbeat names it. */
	private @Nullable String thisNode;

	/** How many heartbeats this node sent: the version of its session. */
	private long sessionVersion;

	/**
	 * Create a repository.
	 * @param clock the wall clock, for the times that leases and locks show and for how
	 * long locks are held
	 * @param transactionManager the transaction manager fenced work runs in, or
	 * {@code null} to run it without a transaction
	 */
	TestControlledLeaseRepository(Clock clock, Supplier<@Nullable PlatformTransactionManager> transactionManager) {
		this.clock = clock;
		this.transactionManager = transactionManager;
	}

	// --- what the test controls

	/**
	 * Let this node acquire the election with exactly this term at its next heartbeat: a
	 * lease that names this node is re-acquired without a take-over policy being asked.
	 */
	synchronized void grant(String election, String nodeId, long term) {
		LeaseRow row = this.leases.get(election);
		if (row != null && term <= row.term) {
			throw new IllegalArgumentException("Election '" + election + "': term " + term
					+ " must be greater than the current term " + row.term + " (terms only grow)");
		}
		this.grants.put(election, term);
		if (row != null) {
			row.holdBy(nodeId, term, now());
		}
	}

	/** Make another node (or, with {@code null}, nobody) hold the lease. */
	synchronized void holdElsewhere(String election, @Nullable String nodeId) {
		this.grants.remove(election);
		LeaseRow row = this.leases.computeIfAbsent(election, (key) -> new LeaseRow());
		row.holdBy(nodeId, row.term + 1, now());
	}

	/** Ask the holder to hand the lease over, as {@code Election.forceLeader} does. */
	synchronized void requestHandoverTo(String election, String nodeId) {
		LeaseRow row = this.leases.get(election);
		if (row == null || row.leaderId == null || !requestHandover(election, nodeId)) {
			throw new IllegalStateException("Election '" + election + "' has no leader to hand over");
		}
	}

	/** Ask the holder to step down, as {@code Election.forceReelection} does. */
	synchronized void requestStepDown(String election) {
		if (!requestReelection(election)) {
			throw new IllegalStateException("Election '" + election + "' has no leader to step down");
		}
	}

	/** Make the lease look acquired on another database server, as after a fail-over. */
	synchronized void failOver(String election) {
		LeaseRow row = this.leases.get(election);
		if (row == null || row.leaderId == null) {
			throw new IllegalStateException("Election '" + election + "' has no leader");
		}
		row.sameServer = false;
		row.version++;
	}

	/**
	 * @return the elections whose lease names a leader
	 */
	synchronized List<String> led() {
		return this.leases.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().leaderId != null)
			.map(Map.Entry::getKey)
			.toList();
	}

	/** Forget every lease and lock, as a new database would; this node must lead none. */
	synchronized void clear() {
		this.leases.clear();
		this.grants.clear();
		this.locks.clear();
	}

	synchronized @Nullable LeaseRow lease(String election) {
		LeaseRow row = this.leases.get(election);
		return (row != null) ? row.copy() : null;
	}

	/** Make another node hold the lock, until the test frees it. */
	synchronized void holdLockElsewhere(String key) {
		LockRow row = this.locks.computeIfAbsent(key, (name) -> new LockRow());
		Instant now = now();
		row.take(OTHER_NODE, now.plus(HELD_ELSEWHERE_FOR), now);
	}

	/** Free the lock, whoever holds it. */
	synchronized void freeLock(String key) {
		forceRelease(key);
	}

	// --- LeaseRepository

	@Override
	public synchronized Optional<LeaseState> find(String election) {
		return Optional.ofNullable(this.leases.get(election))
			.map((row) -> row.state(election, now(), sessionVersion(row)));
	}

	@Override
	public synchronized boolean create(String election, String nodeId, Duration lease) {
		Long granted = this.grants.remove(election);
		if (this.leases.containsKey(election) || granted == null) {
			return false;
		}
		LeaseRow row = new LeaseRow();
		row.holdBy(nodeId, granted, now());
		this.leases.put(election, row);
		return true;
	}

	/**
	 * A lease the test has not granted is not created, by design: no fault for the node
	 * to warn about.
	 */
	@Override
	public synchronized boolean refusesRowsOf(String election) {
		return !this.leases.containsKey(election) && !this.grants.containsKey(election);
	}

	@Override
	public synchronized List<LeaseState> findAll(String nodeId, String instanceId) {
		Instant now = now();
		List<LeaseState> states = new ArrayList<>();
		for (String election : this.joined) {
			LeaseRow row = this.leases.get(election);
			if (row != null) {
				states.add(row.state(election, now, sessionVersion(row)));
			}
		}
		return states;
	}

	@Override
	public synchronized boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease) {
		Long granted = this.grants.get(election);
		LeaseRow row = this.leases.get(election);
		if (granted == null || row == null) {
			return false;
		}
		this.grants.remove(election);
		row.holdBy(nodeId, granted, now());
		return true;
	}

	/**
	 * The version of the session the lease lives on: this node's, if it holds the lease.
	 */
	private long sessionVersion(LeaseRow row) {
		return (row.leaderId != null && row.leaderId.equals(this.thisNode)) ? this.sessionVersion : -1;
	}

	@Override
	public synchronized boolean handOver(String election, String fromNodeId, long term, String toNodeId,
			Duration lease) {
		LeaseRow row = this.leases.get(election);
		if (row == null || !fromNodeId.equals(row.leaderId) || row.term != term) {
			return false;
		}
		row.holdBy(toNodeId, term + 1, now());
		return true;
	}

	@Override
	public synchronized boolean yield(String election, String nodeId, long term) {
		LeaseRow row = this.leases.get(election);
		if (row == null || !nodeId.equals(row.leaderId) || row.term != term) {
			return false;
		}
		row.holdBy(null, term, now());
		row.yieldedBy = nodeId;
		return true;
	}

	@Override
	public synchronized boolean reacquire(String election, String nodeId, long term, Duration lease) {
		LeaseRow row = this.leases.get(election);
		if (row == null || !nodeId.equals(row.leaderId) || row.term != term) {
			return false;
		}
		// A granted term is taken as it is; otherwise (a fail-over, a hand-over to this
		// node while it leads) the next one, as the database would give.
		Long granted = this.grants.remove(election);
		row.holdBy(nodeId, (granted != null) ? granted : term + 1, now());
		return true;
	}

	@Override
	public synchronized boolean requestHandover(String election, String nodeId) {
		LeaseRow row = this.leases.get(election);
		if (row == null) {
			return false;
		}
		row.handoverTo = nodeId;
		row.reelectionRequested = false;
		row.version++;
		return true;
	}

	@Override
	public synchronized boolean requestReelection(String election) {
		LeaseRow row = this.leases.get(election);
		if (row == null || row.leaderId == null) {
			return false;
		}
		row.reelectionRequested = true;
		row.handoverTo = null;
		row.version++;
		return true;
	}

	@Override
	public synchronized Candidacy heartbeat(String nodeId, String instanceId, Duration staleAfter,
			long inheritVersion) {
		this.thisNode = nodeId;
		// Every heartbeat renews this node's session, and with it the leases it holds.
		this.sessionVersion++;
		Instant now = now();
		this.leases.values()
			.stream()
			.filter((row) -> nodeId.equals(row.leaderId))
			.forEach((row) -> row.renewedAt = now);
		return this.nodesSeen.add(nodeId + '/' + instanceId) ? Candidacy.CREATED : Candidacy.HELD;
	}

	/** No other instance ever holds this node's id here. */
	@Override
	public @Nullable NodeRowSighting nodeRow(String nodeId, Duration staleAfter) {
		return null;
	}

	@Override
	public synchronized void join(String nodeId, String instanceId, Collection<String> elections) {
		this.joined.addAll(elections);
	}

	@Override
	public synchronized void removeCandidate(String election, String nodeId, String instanceId) {
		this.joined.remove(election);
	}

	@Override
	public synchronized void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections) {
		this.joined.retainAll(elections);
	}

	@Override
	public synchronized void removeCandidacies(String nodeId, String instanceId) {
		this.joined.clear();
	}

	@Override
	public void purge(Duration maxAge) {
		// Nothing is ever stale: rows change only when the test says so.
	}

	/**
	 * This node, and the leader if it is another node. The members of a partition group
	 * are this node alone, so that its balancing never moves a partition the test gave
	 * this node: only the test changes owners.
	 */
	@Override
	public synchronized List<Candidate> liveCandidates(String election, Duration maxAge) {
		Instant now = now();
		List<Candidate> candidates = new ArrayList<>();
		if (this.thisNode != null && this.joined.contains(election)) {
			candidates.add(new Candidate(this.thisNode, now, now));
		}
		LeaseRow row = this.leases.get(election);
		if (row != null && row.leaderId != null && !row.leaderId.equals(this.thisNode)
				&& !election.startsWith(ElectionService.PARTITION_NAME_PREFIX)) {
			candidates.add(new Candidate(row.leaderId, row.acquiredAt, now));
		}
		candidates.sort(Comparator.comparing(Candidate::nodeId));
		return candidates;
	}

	@Override
	public <T extends @Nullable Object> T runFenced(String election, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		return inTransaction(() -> {
			long version = checkLeaseFence(election, nodeId, term);
			T result = callback.doInFence(term);
			synchronized (this) {
				LeaseRow row = this.leases.get(election);
				if (row == null || row.changesOfHolder != version) {
					throw new NotLeaderException(election, nodeId,
							"the lease of term " + term + " changed holder while the fenced transaction ran");
				}
			}
			return result;
		});
	}

	private synchronized long checkLeaseFence(String election, String nodeId, long term) {
		LeaseRow row = this.leases.get(election);
		if (row == null) {
			throw new NotLeaderException(election, nodeId, "the election has no lease");
		}
		if (!nodeId.equals(row.leaderId) || row.term != term) {
			throw new NotLeaderException(election, nodeId,
					"the lease is held by '" + row.leaderId + "' with term " + row.term + ", not term " + term);
		}
		return row.changesOfHolder;
	}

	// --- LockRepository

	@Override
	public synchronized OptionalLong tryLock(String key, String nodeId, Duration atMostFor) {
		Instant now = now();
		LockRow row = this.locks.computeIfAbsent(key, (name) -> new LockRow());
		if (row.isHeld(now)) {
			return OptionalLong.empty();
		}
		row.take(nodeId, now.plus(atMostFor), now);
		return OptionalLong.of(row.term);
	}

	@Override
	public synchronized boolean extendLock(String key, String nodeId, long term, Duration atMostFor) {
		Instant now = now();
		LockRow row = this.locks.get(key);
		if (row == null || !nodeId.equals(row.holder) || row.term != term || !row.isHeld(now) || row.released) {
			return false;
		}
		row.expiresAt = now.plus(atMostFor);
		row.extendedAt = now;
		return true;
	}

	@Override
	public synchronized boolean releaseLock(String key, String nodeId, long term, Duration atLeastFor,
			Duration atLeastForAfterExtension) {
		Instant now = now();
		LockRow row = this.locks.get(key);
		if (row == null || !nodeId.equals(row.holder) || row.term != term || !row.isHeld(now)) {
			return false;
		}
		// As the database does: taken until the later of atLeastFor after the acquisition
		// and the extension's atLeastFor after the last extension, never longer than
		// before. A time after now (the clock stepped back) counts as now.
		Instant heldUntil = latest(earliest(row.acquiredAt, now).plus(atLeastFor),
				earliest(row.extendedAt, now).plus(atLeastForAfterExtension), now);
		row.expiresAt = heldUntil.isBefore(row.expiresAt) ? heldUntil : row.expiresAt;
		row.released = true;
		return true;
	}

	private static Instant earliest(Instant first, Instant second) {
		return first.isBefore(second) ? first : second;
	}

	private static Instant latest(Instant first, Instant second, Instant third) {
		Instant later = first.isAfter(second) ? first : second;
		return later.isAfter(third) ? later : third;
	}

	@Override
	public <T extends @Nullable Object> T runLockFenced(String key, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		return inTransaction(() -> {
			checkLockFence(key, nodeId, term);
			T result = callback.doInFence(term);
			checkLockFence(key, nodeId, term);
			return result;
		});
	}

	private synchronized void checkLockFence(String key, String nodeId, long term) {
		LockRow row = this.locks.get(key);
		if (row == null || !nodeId.equals(row.holder) || row.term != term || !row.isHeld(now())) {
			throw new LockNotHeldException(key, term, "another node took it, or it expired or was released");
		}
	}

	@Override
	public synchronized List<LockState> findLocks() {
		Instant now = now();
		List<LockState> states = new ArrayList<>();
		this.locks.forEach((key, row) -> states
			.add(new LockState(key, row.holder, row.term, row.acquiredAt, row.expiresAt, row.isHeld(now), now)));
		return states;
	}

	@Override
	public synchronized OptionalLong forceRelease(String key) {
		LockRow row = this.locks.get(key);
		if (row == null) {
			return OptionalLong.empty();
		}
		row.term++;
		row.holder = null;
		row.expiresAt = now();
		return OptionalLong.of(row.term);
	}

	private <T extends @Nullable Object> T inTransaction(Supplier<T> work) {
		PlatformTransactionManager transactions = this.transactionManager.get();
		if (transactions == null) {
			return work.get();
		}
		// Joins a transaction under way, as the fenced work does on a database.
		return new TransactionTemplate(transactions).execute((status) -> work.get());
	}

	private Instant now() {
		return this.clock.instant();
	}

	/** One election's lease as the test made it. */
	static final class LeaseRow {

		private static final Duration SHOWN_LEASE = Duration.ofSeconds(10);

		@Nullable String leaderId;

		long term;

		long version;

		/** Counts changes of holder, which fenced transactions in flight must not see. */
		long changesOfHolder;

		Instant acquiredAt = Instant.EPOCH;

		Instant renewedAt = Instant.EPOCH;

		@Nullable String handoverTo;

		boolean reelectionRequested;

		@Nullable String yieldedBy;

		boolean sameServer = true;

		void holdBy(@Nullable String nodeId, long newTerm, Instant now) {
			this.leaderId = nodeId;
			this.term = newTerm;
			this.version++;
			this.changesOfHolder++;
			this.acquiredAt = now;
			this.renewedAt = now;
			this.handoverTo = null;
			this.reelectionRequested = false;
			this.yieldedBy = null;
			this.sameServer = true;
		}

		LeaseState state(String election, Instant now, long holderVersion) {
			// A held lease never expires here (only the test changes its holder); it
			// shows the expiry a renewal would give.
			Instant expiresAt = (this.leaderId != null) ? this.renewedAt.plus(SHOWN_LEASE) : this.renewedAt;
			return new LeaseState(election, this.leaderId, this.term, this.version, this.acquiredAt, this.renewedAt,
					expiresAt, this.handoverTo, this.reelectionRequested, this.yieldedBy, false, this.sameServer, now,
					holderVersion, false);
		}

		LeaseRow copy() {
			LeaseRow copy = new LeaseRow();
			copy.leaderId = this.leaderId;
			copy.term = this.term;
			copy.version = this.version;
			copy.changesOfHolder = this.changesOfHolder;
			copy.acquiredAt = this.acquiredAt;
			copy.renewedAt = this.renewedAt;
			copy.handoverTo = this.handoverTo;
			copy.reelectionRequested = this.reelectionRequested;
			copy.yieldedBy = this.yieldedBy;
			copy.sameServer = this.sameServer;
			return copy;
		}

	}

	/** One lock's row. */
	private static final class LockRow {

		@Nullable String holder;

		long term;

		Instant acquiredAt = Instant.EPOCH;

		Instant expiresAt = Instant.EPOCH;

		/** When it was last extended, the acquisition until then. */
		Instant extendedAt = Instant.EPOCH;

		/** Whether its holder released it (no extension revives it). */
		boolean released;

		boolean isHeld(Instant now) {
			return this.holder != null && this.expiresAt.isAfter(now);
		}

		void take(String nodeId, Instant until, Instant now) {
			this.holder = nodeId;
			this.term++;
			this.acquiredAt = now;
			this.extendedAt = now;
			this.expiresAt = until;
			this.released = false;
		}

		@Override
		public String toString() {
			return Objects.toString(this.holder) + "@" + this.term;
		}

	}

}
