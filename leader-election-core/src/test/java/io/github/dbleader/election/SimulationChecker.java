package io.github.dbleader.election;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.time.Duration;
import java.util.Map;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.InMemoryLockRepository;
import io.github.dbleader.election.partition.PartitionGroup;

/**
 * The invariants of a {@link Simulation}, checked after every event in simulated (global)
 * time, and over the history of grants and fenced commits:
 * <ul>
 * <li>at most one process believes it leads each election (on its own clock, I2);
 * <li>a term is granted to one node only, and a grant's term is greater than every term
 * granted to another node before (I4);
 * <li>a fenced commit commits under the term the lease row holds at that moment, and
 * never under a term lower than one committed before (I5);
 * <li>an election that no process believes it leads for longer than {@link #SILENCE},
 * while a process that runs it has run without a pause all that time, has had a WARN line
 * naming it, or a node's state, since it lost its leader: no election is left without a
 * leader silently;
 * <li>at the end of the quiet phase, every election has exactly one leader and no forced
 * request is still pending (liveness, I6);
 * <li>at most one process believes it holds each cluster lock (a run under way whose
 * {@code HeldLock.isHeld()} is true), except where the failure model says a second node
 * may take a held lock: after a forward step of the database clock, a failover that may
 * have lost writes, or an operator's release, between the first run's start and the
 * second's acquisition (docs/reference/failure-model.md, cluster locks and steps of the
 * database clock);
 * <li>every acquisition of a lock gets a term greater than every earlier one (I4), and a
 * fenced run under a lock commits only while its acquisition holds the lock's row, never
 * under a term lower than one committed before (I5);
 * <li>at the end of the quiet phase, a lock that no process believes it holds is taken by
 * a node that tries it, once its row has expired.
 * </ul>
 * A violation fails with the simulation's report: the seed, how to replay it, and the
 * trace.
 */
final class SimulationChecker {

	private final Simulation simulation;

	/** By election, then by term: the node it was granted to. */
	private final Map<String, Map<Long, String>> granted = new HashMap<>();

	/** By election, then by node: the highest term granted to it. */
	private final Map<String, Map<String, Long>> highestByNode = new HashMap<>();

	/** By election: the highest term of a fenced commit. */
	private final Map<String, Long> highestCommitted = new HashMap<>();

	/** By lock key: the highest term of an acquisition. */
	private final Map<String, Long> highestLockTerm = new HashMap<>();

	/** By lock key: the highest term of a fenced commit. */
	private final Map<String, Long> highestLockCommit = new HashMap<>();

	/**
	 * When the database clock stepped forward or the database failed over (simulated
	 * time).
	 */
	private final List<Long> lockGaps = new ArrayList<>();

	/** By lock name: when an operator's release of it was sent. */
	private final Map<String, List<Long>> forceReleases = new HashMap<>();

	/**
	 * How long an election may go without a leader, while a process that runs it runs
	 * unpaused, before a WARN line must have said why: four leases, more than any wait
	 * the design asks of a healthy candidate (a lease to see a holder gone, a lease after
	 * a failover, a lease of a fenced transaction's hold).
	 */
	static final long SILENCE = 4 * Simulation.LEASE.toNanos();

	/**
	 * By election index: the index of the process that leads it, as the check goes;
	 * reused by every check.
	 */
	private final int[] believers;

	/**
	 * By partition: the index of the process that owns it, as the check goes; reused by
	 * every check.
	 */
	private final int[] partitionOwners;

	/**
	 * By election index: since when no process believes it leads it, or -1 while one
	 * does.
	 */
	private final long[] leaderlessSince;

	/**
	 * Gaps without a leader that ended after the faults did: election index, start, end.
	 */
	private final List<long[]> leaderlessGaps = new ArrayList<>();

	/** When the faults ended (simulated time), {@code Long.MAX_VALUE} until they have. */
	private long faultsEnded = Long.MAX_VALUE;

	/**
	 * By election index: when its believer last changed (a process, or none, for
	 * another).
	 */
	private final long[] believerChanged;

	/** By election index: the believer as the last check found it, -1 for none. */
	private final int[] lastBelievers;

	/** By partition: when its owner last changed, as {@link #believerChanged}. */
	private final long[] ownerChanged;

	/** By partition: the name of its election. */
	private final String[] partitionNames;

	/** By partition: since when no process believes it owns it, or -1 while one does. */
	private final long[] ownerlessSince;

	/** By partition: the owner as the last check found it, -1 for none. */
	private final int[] lastOwners;

	private int grants;

	private int lockRuns;

	/**
	 * Where {@link Simulation#PERMIT_LOCK}'s rows are in {@link Simulation#lockRows()}.
	 */
	private final int[] permitRows;

	/**
	 * Whether every permit of {@link Simulation#PERMIT_LOCK} was held at the last check.
	 */
	private boolean allPermitsHeld;

	/**
	 * How often every permit of {@link Simulation#PERMIT_LOCK} came to be held at once.
	 */
	private int allPermitsHeldTimes;

	private int commits;

	SimulationChecker(Simulation simulation) {
		this.simulation = simulation;
		this.permitRows = ElectionNames.permitKeys(Simulation.PERMIT_LOCK, Simulation.PERMITS)
			.stream()
			.mapToInt((key) -> simulation.lockRows().indexOf(key.substring(ElectionNames.LOCK_NAME_PREFIX.length())))
			.toArray();
		this.leaderlessSince = new long[simulation.electionNames().size()];
		this.partitionOwners = new int[simulation.partitions()];
		this.believers = new int[simulation.electionNames().size()];
		this.believerChanged = new long[this.believers.length];
		this.lastBelievers = new int[this.believers.length];
		Arrays.fill(this.lastBelievers, -1);
		this.ownerChanged = new long[this.partitionOwners.length];
		this.ownerlessSince = new long[this.partitionOwners.length];
		this.partitionNames = new String[this.partitionOwners.length];
		for (int partition = 0; partition < this.partitionNames.length; partition++) {
			this.partitionNames[partition] = PartitionGroup.electionName(Simulation.PARTITION_GROUP, partition);
		}
		this.lastOwners = new int[this.partitionOwners.length];
		Arrays.fill(this.lastOwners, -1);
	}

	/** At most one believer per election, now. */
	void check() {
		List<SimulatedNode> nodes = this.simulation.nodes();
		List<String> elections = this.simulation.electionNames();
		int[] believers = this.believers;
		Arrays.fill(believers, -1);
		// Process by process: one that does not run believes nothing.
		for (int i = 0; i < nodes.size(); i++) {
			SimulatedNode node = nodes.get(i);
			if (!node.running()) {
				continue;
			}
			for (int index = 0; index < believers.length; index++) {
				if (node.believes(index)) {
					if (believers[index] >= 0) {
						SimulatedNode believer = nodes.get(believers[index]);
						String election = elections.get(index);
						fail("two nodes believe they lead " + election + ": " + believer.label() + " (term "
								+ believer.term(election) + ") and " + node.label() + " (term " + node.term(election)
								+ ")");
					}
					believers[index] = i;
				}
			}
		}
		noteChanges(believers, this.lastBelievers, this.believerChanged);
		for (int index = 0; index < believers.length; index++) {
			if (believers[index] >= 0) {
				if (this.leaderlessSince[index] >= 0) {
					noteLeaderless(index, this.leaderlessSince[index], this.simulation.now());
				}
				this.leaderlessSince[index] = -1;
			}
			else if (this.leaderlessSince[index] < 0) {
				this.leaderlessSince[index] = this.simulation.now();
			}
			else {
				checkNotSilent(elections.get(index), this.leaderlessSince[index]);
				checkLeaderlessWithinBound(elections.get(index), this.leaderlessSince[index], LEADERLESS_BOUND);
			}
		}
		checkLocks(nodes);
		checkPartitions(nodes);
	}

	/**
	 * At most one process believes it owns each partition, now
	 * ({@link PartitionGroup#isOwner}).
	 */
	private void checkPartitions(List<SimulatedNode> nodes) {
		int[] owners = this.partitionOwners;
		if (owners.length == 0) {
			return;
		}
		Arrays.fill(owners, -1);
		for (int i = 0; i < nodes.size(); i++) {
			PartitionGroup group = nodes.get(i).group();
			if (group == null) {
				continue;
			}
			for (int partition = 0; partition < owners.length; partition++) {
				if (group.isOwner(partition)) {
					if (owners[partition] >= 0) {
						SimulatedNode owner = nodes.get(owners[partition]);
						SimulatedNode node = nodes.get(i);
						fail("two processes believe they own partition " + partition + ": " + owner.label() + " (term "
								+ owner.partitionTerm(partition) + ") and " + node.label() + " (term "
								+ node.partitionTerm(partition) + ")");
					}
					owners[partition] = i;
				}
			}
		}
		noteChanges(owners, this.lastOwners, this.ownerChanged);
		for (int partition = 0; partition < owners.length; partition++) {
			if (owners[partition] >= 0) {
				this.ownerlessSince[partition] = -1;
			}
			else if (this.ownerlessSince[partition] < 0) {
				this.ownerlessSince[partition] = this.simulation.now();
			}
			else {
				String election = this.partitionNames[partition];
				checkNotSilent(election, this.ownerlessSince[partition]);
				checkLeaderlessWithinBound(election, this.ownerlessSince[partition], OWNERLESS_BOUND);
			}
		}
	}

	private void noteChanges(int[] now, int[] last, long[] changed) {
		for (int index = 0; index < now.length; index++) {
			if (now[index] != last[index]) {
				last[index] = now[index];
				changed[index] = this.simulation.now();
			}
		}
	}

	private void noteLeaderless(int index, long since, long until) {
		if (until > this.faultsEnded) {
			this.leaderlessGaps.add(new long[] { index, since, until });
		}
	}

	/** Keep the gaps without a leader that end from now on (the faults' end). */
	void faultsEnded(long at) {
		this.faultsEnded = at;
	}

	/**
	 * The longest time an election went without a leader in the quiet phase: from the
	 * later of the gap's start and the quiet phase's, to a leader's grant or the end.
	 * @param quietFrom when the quiet phase began: the faults' end or the last pause
	 * after it
	 * @param end the end of the quiet phase
	 * @return the election and the gap, in nanoseconds; {@code null} if none had one
	 */
	long[] longestLeaderless(long quietFrom, long end) {
		for (int index = 0; index < this.leaderlessSince.length; index++) {
			if (this.leaderlessSince[index] >= 0) {
				noteLeaderless(index, this.leaderlessSince[index], end);
			}
		}
		long[] longest = null;
		for (long[] gap : this.leaderlessGaps) {
			long length = gap[2] - Math.max(gap[1], quietFrom);
			if (length > 0 && (longest == null || length > longest[1])) {
				longest = new long[] { gap[0], length, gap[1] };
			}
		}
		return longest;
	}

	/**
	 * @return when the last election's believer last changed (simulated time)
	 */
	long electionsSettledAt() {
		return Arrays.stream(this.believerChanged).max().orElse(0);
	}

	/**
	 * @return when the last partition's owner last changed (simulated time)
	 */
	long partitionsSettledAt() {
		return Arrays.stream(this.ownerChanged).max().orElse(0);
	}

	/**
	 * Liveness of the partition group at the end of the quiet phase: every partition has
	 * exactly one owner, and no hand-over (balancing's or a pin's) or re-election is
	 * pending.
	 */
	void checkPartitionsLive(long at) {
		List<String> problems = new ArrayList<>();
		InMemoryLeaseDatabase server = this.simulation.database().server();
		for (int partition = 0; partition < this.simulation.partitions(); partition++) {
			int number = partition;
			List<String> owners = this.simulation.nodes()
				.stream()
				.filter((node) -> node.owns(number))
				.map(SimulatedNode::label)
				.toList();
			InMemoryLeaseDatabase.Row row = server
				.row(PartitionGroup.electionName(Simulation.PARTITION_GROUP, partition));
			boolean pending = row != null && (row.handoverTo != null || row.reelectionRequested);
			if (owners.size() != 1 || pending) {
				problems.add("partition " + partition + " has owners " + owners
						+ (pending ? " and a request pending" : "") + " (row: "
						+ server.describe(PartitionGroup.electionName(Simulation.PARTITION_GROUP, partition)) + "; "
						+ String.join(", ",
								this.simulation.nodes().stream().map((node) -> node.describePartition(number)).toList())
						+ ")");
			}
		}
		if (!problems.isEmpty()) {
			fail("after the quiet phase, at " + at / 1e9 + " s: " + String.join("; ", problems));
		}
	}

	/**
	 * How long an election may go without a leader once the faults have ended (and every
	 * process has run unpaused since, has held its node id, and the database has neither
	 * failed over nor stepped its clock back since): up to a renew interval until a
	 * candidate's round reads the database as the faults left it, a renew interval to
	 * join again where a failover lost the join (its leases are read once joined), a
	 * lease that it watches the row unchanged (or waits after a failover), up to a renew
	 * interval until the round that takes it, and that round's statements (each within
	 * the statement timeout; the processes' clocks drift by a few milliseconds over a
	 * lease at most). The lease and the renew interval are the part a crash of the holder
	 * costs in a healthy cluster (I6); the rest is how long the faults' last effects take
	 * to be read.
	 */
	static final long LEADERLESS_BOUND = Simulation.LEASE.toNanos() + 3 * Simulation.RENEW.toNanos()
			+ Simulation.STATEMENT_TIMEOUT.toNanos();

	/**
	 * As {@link #LEADERLESS_BOUND}, for a partition: its election's bound, then the
	 * settle time, in which balancing may hand it to a member that has just joined, and a
	 * lease more: a partition's lease that was acquired on the server before a failover
	 * and that balancing hands over afterwards is acquired by its target only a lease
	 * after the target's first read of the new server, which may come with the target's
	 * join of the partition's election as the faults end (on-demand seed 10046371 of
	 * 7f01c9f: 6.75 s, beyond the bound without this lease).
	 */
	static final long OWNERLESS_BOUND = LEADERLESS_BOUND + Simulation.PARTITION_SETTINGS.settleTime().toNanos()
			+ Simulation.LEASE.toNanos();

	private void checkLeaderlessWithinBound(String election, long since, long bound) {
		if (this.faultsEnded == Long.MAX_VALUE) {
			return;
		}
		long now = this.simulation.now();
		if (now - Math.max(since, this.faultsEnded) <= bound) {
			// Within the bound even from the faults' end: the quiet phase starts no
			// earlier.
			return;
		}
		long from = Math.max(since, Math.max(this.faultsEnded, this.simulation.calmSince()));
		if (now - from > bound) {
			fail(election + " has had no leader for " + (now - from) / 1_000_000 + " ms of the quiet phase, more than"
					+ " its bound of " + bound / 1_000_000 + " ms (row: "
					+ this.simulation.database().server().describe(election) + ")");
		}
	}

	private void checkNotSilent(String election, long since) {
		long now = this.simulation.now();
		if (now - since <= SILENCE) {
			return;
		}
		for (SimulatedNode node : this.simulation.nodes()) {
			if (node.runs(election) && now - node.unpausedSince() > SILENCE
					&& !this.simulation.warnedAbout(election, since)) {
				fail(election + " has had no leader for " + (now - since) / 1_000_000 + " ms, while " + node.label()
						+ " ran it unpaused, and no WARN line said why (row: "
						+ this.simulation.database().server().describe(election) + ")");
			}
		}
	}

	/**
	 * At most one believer per lock, now, but where a documented fault lets a second take
	 * it.
	 */
	private void checkLocks(List<SimulatedNode> nodes) {
		SimulatedNode.LockHolding[] believers = null;
		SimulatedNode[] believing = null;
		for (int i = 0; i < nodes.size(); i++) {
			List<SimulatedNode.LockHolding> holdings = nodes.get(i).holdings();
			for (int h = 0; h < holdings.size(); h++) {
				SimulatedNode.LockHolding holding = holdings.get(h);
				if (!holding.lock().isHeld()) {
					continue;
				}
				if (believers == null) {
					believers = new SimulatedNode.LockHolding[this.simulation.lockRows().size()];
					believing = new SimulatedNode[believers.length];
				}
				// By row: each permit of a lock is held by one run at most, so that no
				// more
				// runs hold a lock than it has permits.
				int index = this.simulation.lockRows().indexOf(holding.name());
				SimulatedNode.LockHolding other = believers[index];
				if (other != null) {
					SimulatedNode.LockHolding first = (other.acquiredAt() <= holding.acquiredAt()) ? other : holding;
					SimulatedNode.LockHolding second = (first == other) ? holding : other;
					if (!excused(first, second)) {
						fail("two processes believe they hold lock " + holding.name() + ": " + believing[index].label()
								+ " (term " + other.lock().term() + ") and " + nodes.get(i).label() + " (term "
								+ holding.lock().term() + ")");
					}
				}
				believers[index] = holding;
				believing[index] = nodes.get(i);
			}
		}
		boolean all = believers != null;
		for (int row = 0; all && row < this.permitRows.length; row++) {
			all = believers[this.permitRows[row]] != null;
		}
		if (all && !this.allPermitsHeld) {
			this.allPermitsHeldTimes++;
		}
		this.allPermitsHeld = all;
	}

	/**
	 * @return how often every permit of {@link Simulation#PERMIT_LOCK} came to be held at
	 * once, by as many runs
	 */
	int allPermitsHeldTimes() {
		return this.allPermitsHeldTimes;
	}

	/**
	 * Whether the failure model lets a second node take a lock the first still believes
	 * it holds: a forward step of the database clock, a failover that may have lost the
	 * first's writes, or an operator's release, after the first run started and before
	 * the second's acquisition answered.
	 */
	private boolean excused(SimulatedNode.LockHolding first, SimulatedNode.LockHolding second) {
		for (long gap : this.lockGaps) {
			if (gap >= first.startedAt() && gap <= second.acquiredAt()) {
				return true;
			}
		}
		for (long release : this.forceReleases.getOrDefault(first.name(), List.of())) {
			if (release >= first.startedAt() && release <= second.acquiredAt()) {
				return true;
			}
		}
		return false;
	}

	/** The database clock stepped forward, or the database failed over, now. */
	void lockGap() {
		this.lockGaps.add(this.simulation.now());
	}

	/**
	 * An operator's release of a lock is sent now.
	 * @param name the lock's name
	 */
	void lockForceReleased(String name) {
		this.forceReleases.computeIfAbsent(name, (key) -> new ArrayList<>()).add(this.simulation.now());
	}

	/** The database applied a node's take of a lock. */
	void lockTaken(String key, String nodeId, long term) {
		this.lockRuns++;
		Long before = this.highestLockTerm.put(key,
				Math.max(term, this.highestLockTerm.getOrDefault(key, Long.MIN_VALUE)));
		if (before != null && before >= term) {
			fail("lock " + key + " taken by " + nodeId + " under term " + term + " after an acquisition under term "
					+ before);
		}
	}

	/** A fenced run under a lock committed, at this moment, on that server. */
	void lockCommit(InMemoryLockRepository server, String key, String nodeId, long term) {
		this.commits++;
		InMemoryLockRepository.Row row = server.row(key);
		if (row == null || !nodeId.equals(row.holder()) || row.term() != term) {
			fail("stale fenced commit under lock " + key + " by " + nodeId + " under term " + term + "; the row names "
					+ ((row != null) ? row.holder() + " with term " + row.term() : "nobody"));
		}
		Long before = this.highestLockCommit.put(key,
				Math.max(term, this.highestLockCommit.getOrDefault(key, Long.MIN_VALUE)));
		if (before != null && before > term) {
			fail("fenced commit under lock " + key + " under term " + term + " after one under term " + before);
		}
		this.simulation.trace(nodeId, "committed fenced run under lock " + key + " term " + term);
	}

	/**
	 * Liveness of a lock at the end of the quiet phase: a lock with a permit no process
	 * believes it holds is taken by a node that tries it, once that permit's row has
	 * expired, which is no later than the longest hold a run asks for.
	 * @param name the lock's name
	 * @param permits how many permits it has
	 * @param longest the longest {@code atMostFor} or lease a run asks for
	 */
	void checkLockLive(String name, int permits, Duration longest) {
		List<SimulatedNode> nodes = this.simulation.nodes();
		SimulatedDatabase database = this.simulation.database();
		boolean anyFree = false;
		for (String key : ElectionNames.permitKeys(name, permits)) {
			String row = key.substring(ElectionNames.LOCK_NAME_PREFIX.length());
			if (nodes.stream()
				.anyMatch((node) -> node.holdings()
					.stream()
					.anyMatch((holding) -> holding.name().equals(row) && holding.lock().isHeld()))) {
				continue;
			}
			anyFree = true;
			InMemoryLockRepository.Row held = database.locks().row(key);
			if (held != null) {
				long left = held.expiresAt() - database.millis();
				if (left > longest.toMillis()) {
					fail("lock " + row + " is held by nobody who believes it, and its row " + held + " expires in "
							+ left + " ms, past the longest hold asked for");
				}
				this.simulation.advanceTo(this.simulation.now() + Math.max(0, left + 1) * 1_000_000L);
			}
		}
		if (!anyFree) {
			return;
		}
		SimulatedNode node = nodes.stream().filter((any) -> any.running() && !any.paused()).findFirst().orElseThrow();
		boolean taken = (permits == 1) ? node.tryLockOnce(name) : node.tryPermitOnce(name, permits);
		if (!taken) {
			fail("after the quiet phase, at " + this.simulation.now() / 1e9 + " s, lock " + name + " has a permit"
					+ " believed held by nobody whose row has expired, and " + node.label() + " could not take one"
					+ " (rows: " + ElectionNames.permitKeys(name, permits).stream().map(database.locks()::row).toList()
					+ ")");
		}
	}

	int lockRuns() {
		return this.lockRuns;
	}

	/** A grant was announced. */
	void granted(String election, String nodeId, long term) {
		this.grants++;
		this.simulation.trace(nodeId, "granted " + election + " term " + term);
		String holder = this.granted.computeIfAbsent(election, (key) -> new HashMap<>()).putIfAbsent(term, nodeId);
		if (holder != null && !holder.equals(nodeId)) {
			fail("term " + term + " of " + election + " granted to " + holder + " and to " + nodeId);
		}
		Map<String, Long> highest = this.highestByNode.computeIfAbsent(election, (key) -> new HashMap<>());
		highest.forEach((other, otherTerm) -> {
			if (!other.equals(nodeId) && otherTerm >= term) {
				fail("term " + term + " of " + election + " granted to " + nodeId + " after term " + otherTerm
						+ " was granted to " + other);
			}
		});
		highest.merge(nodeId, term, Math::max);
	}

	/** Fenced work committed, at this moment, on that server. */
	void fencedCommit(InMemoryLeaseDatabase server, String election, String nodeId, long term) {
		this.commits++;
		InMemoryLeaseDatabase.Row row = server.row(election);
		if (row == null || !nodeId.equals(row.leaderId) || row.term != term) {
			fail("stale fenced commit on " + election + " by " + nodeId + " under term " + term + "; the lease names "
					+ ((row != null) ? row.leaderId + " with term " + row.term : "nobody"));
		}
		Long before = this.highestCommitted.put(election,
				Math.max(term, this.highestCommitted.getOrDefault(election, Long.MIN_VALUE)));
		if (before != null && before > term) {
			fail("fenced commit on " + election + " under term " + term + " after one under term " + before);
		}
		this.simulation.trace(nodeId, "committed fenced work on " + election + " term " + term);
	}

	/**
	 * A holder re-acquires leases: it must not clear an operator's request on one of them
	 * (a hand-over to another node, a re-election), which it carries out instead (I6).
	 * @return what checks, once the re-acquire ran, that every such request still stands
	 */
	Runnable reacquiring(InMemoryLeaseDatabase server, String nodeId, Map<String, Long> terms) {
		Map<String, String> requests = new HashMap<>();
		terms.forEach((election, term) -> {
			InMemoryLeaseDatabase.Row row = server.row(election);
			if (row != null && nodeId.equals(row.leaderId) && row.term == term
					&& ((row.handoverTo != null && !row.handoverTo.equals(nodeId)) || row.reelectionRequested)) {
				requests.put(election, "hand-over to " + row.handoverTo + ", re-election " + row.reelectionRequested);
			}
		});
		return () -> requests.forEach((election, request) -> {
			InMemoryLeaseDatabase.Row row = server.row(election);
			if (row == null || (row.handoverTo == null && !row.reelectionRequested)) {
				fail(nodeId + " re-acquired " + election + " and so dropped the forced request on it (" + request
						+ ")");
			}
		});
	}

	/** Liveness at the end of the quiet phase. */
	void checkLive(long at) {
		List<String> problems = new ArrayList<>();
		InMemoryLeaseDatabase server = this.simulation.database().server();
		for (String election : this.simulation.electionNames()) {
			long believers = this.simulation.nodes().stream().filter((node) -> node.believes(election)).count();
			if (believers != 1) {
				problems.add(election + " has " + believers + " leaders (row: " + server.describe(election) + ")");
			}
			InMemoryLeaseDatabase.Row row = server.row(election);
			if (row != null && (row.handoverTo != null || row.reelectionRequested)) {
				problems.add(election + " still has a forced request pending (hand-over to " + row.handoverTo
						+ ", re-election " + row.reelectionRequested + ")");
			}
		}
		if (!problems.isEmpty()) {
			fail("after the quiet phase, at " + at / 1e9 + " s: " + String.join("; ", problems));
		}
	}

	int grants() {
		return this.grants;
	}

	int commits() {
		return this.commits;
	}

	private void fail(String violation) {
		throw new Violation(violation + "\n" + this.simulation.report());
	}

	/** An invariant does not hold. */
	static final class Violation extends AssertionError {

		Violation(String message) {
			super(message);
		}

	}

}
