package io.github.dbleader.election;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.time.Duration;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.ClusterLocksWithoutThreads;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.KeepAliveSettings;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroups;
import io.github.dbleader.election.partition.PartitionGroupsWithoutThreads;
import org.jspecify.annotations.Nullable;

/**
 * One process of a {@link Simulation}, running the election core's own classes as the
 * {@link ElectionService} wires them: its {@link Heartbeat} every renew interval, the
 * watchdog ({@link AnnouncedBeliefs#check}) every quarter renew interval, its
 * {@link Election}s, its {@link ClusterLocks} (their keep-alive's rounds every renew
 * interval), and the application's fenced work, lock runs and operator calls, each as
 * events in simulated time on the simulation's one thread. Its monotonic clock drifts
 * from simulated time by a rate of its own. It can pause (every event and every answer
 * waits), crash (it never returns from what it was doing), stop gracefully, and start
 * again with the same node id as a new instance.
 */
final class SimulatedNode {

	private final String id;

	private final Simulation simulation;

	private final ElectionSettings settings;

	private final SimulatedConnection connection;

	private final SimulatedDatabase database;

	/** The running process's cluster locks, on its own lock statements. */
	private @Nullable ClusterLocks locks;

	/** The lock runs under way in the running process, as their task sees them. */
	private final List<LockHolding> holdings = new ArrayList<>();

	/**
	 * Moved on by every start and end of the process: events and calls of an older one
	 * are void.
	 */
	private int generation;

	private boolean running;

	/**
	 * The running process's instance id, as its heartbeat writes it into the node's row.
	 */
	private String instanceId;

	private long pausedUntil;

	/** When the running process started (simulated time). */
	private long startedAt;

	/** When the heartbeat round under way started, or -1 between rounds. */
	private long roundStartedAt = -1;

	/**
	 * When the last round that took longer than a renew interval ended: one thread holds
	 * the whole simulation, so a round whose statement waited while another process's
	 * long work ran nested in it returns late, as after a pause of its process.
	 */
	private long lateRoundEndedAt;

	private @Nullable String pauseBefore;

	private long pauseBeforeNanos;

	private @Nullable String pauseOnAnswer;

	private long pauseOnAnswerNanos;

	private boolean inRound;

	/**
	 * The running process's election service, whose rounds and watchdog run as events
	 * here.
	 */
	private @Nullable ElectionService service;

	/**
	 * The running process's partition groups, whose balancing steps run as events here.
	 */
	private @Nullable PartitionGroups groups;

	/**
	 * The running process's member of the simulation's partition group, or {@code null}
	 * while it left it.
	 */
	private @Nullable PartitionGroup group;

	/**
	 * The rounds that came while one was under way: they run after it, on the heartbeat's
	 * one thread.
	 */
	private final List<Runnable> afterRound = new ArrayList<>();

	/**
	 * Whether the service of the running process stopped its rounds (a graceful stop
	 * under way).
	 */
	private boolean roundsStopped;

	private final List<String> electionNames;

	/**
	 * The elections this process runs, at the index of their name in
	 * {@link #electionNames}: what the checker reads after every event.
	 */
	private final Election[] byIndex;

	/**
	 * Tells the checker of every grant, as it is announced; the partition groups hear of
	 * their partitions' grants from the listeners their elections were joined with.
	 */
	private final LeadershipListener listener = new LeadershipListener() {
		@Override
		public void granted(String election, String nodeId, long term) {
			SimulatedNode.this.simulation.checker().granted(election, nodeId, term);
		}
	};

	SimulatedNode(String id, Simulation simulation, SimulatedDatabase database, ElectionSettings settings,
			List<String> electionNames) {
		this.id = id;
		this.instanceId = id;
		this.simulation = simulation;
		this.settings = settings;
		this.electionNames = new ArrayList<>(electionNames);
		this.byIndex = new Election[electionNames.size()];
		this.connection = new SimulatedConnection(simulation, database, this, settings);
		this.database = database;
	}

	String id() {
		return this.id;
	}

	/**
	 * @return the instance id of the process, for the trace
	 */
	String label() {
		return this.instanceId;
	}

	int generation() {
		return this.generation;
	}

	boolean running() {
		return this.running;
	}

	boolean paused() {
		return this.pausedUntil > this.simulation.now();
	}

	long pausedUntil() {
		return this.pausedUntil;
	}

	/**
	 * Since when the process has run without a pause: in the future while it is paused.
	 * @return simulated time
	 */
	/**
	 * @return when this process last got its node id, or -1 if it has not
	 */
	long sessionSince() {
		return this.connection.sessionSince();
	}

	long unpausedSince() {
		long renew = this.settings.renewInterval().toNanos();
		if (this.roundStartedAt >= 0 && this.simulation.now() - this.roundStartedAt > renew) {
			return Long.MAX_VALUE;
		}
		return Math.max(Math.max(this.startedAt, this.pausedUntil), this.lateRoundEndedAt);
	}

	/**
	 * @return whether the process runs the election now
	 */
	boolean runs(String election) {
		return this.running && this.service.findElection(election) != null;
	}

	/**
	 * Start a new process with this node id: a new instance, a new clock, every
	 * configured election joined; its first heartbeat comes within a renew interval.
	 */
	void start() {
		this.generation++;
		this.running = true;
		this.connection.restarted();
		this.inRound = false;
		this.roundStartedAt = -1;
		String instanceId = this.id + "#" + this.simulation.nextInstance();
		this.instanceId = instanceId;
		Random random = this.simulation.random();
		long base = random.nextLong() >>> 8;
		// Within what the guard allows: a tenth of a percent either way, now and then a
		// percent.
		double drift = (random.nextInt(10) == 0 ? 0.01 : 0.001) * (2 * random.nextDouble() - 1);
		long startedAt = this.simulation.now();
		this.startedAt = startedAt;
		MonotonicClock processClock = () -> base + (long) ((this.simulation.now() - startedAt) * (1 + drift));
		this.roundsStopped = false;
		this.afterRound.clear();
		this.service = new ElectionService(this.connection, this.settings, this.id, instanceId, this.listener,
				processClock, DatabasePreparation.NONE, new Random(random.nextLong()), this::scheduled);
		String rank = this.simulation.rankOfNewProcess();
		this.service.setRank(rank);
		this.holdings.clear();
		this.locks = ClusterLocksWithoutThreads.create(
				new SimulatedLockConnection(this.simulation, this.database, this.connection, this.generation), this.id,
				processClock, KeepAliveSettings.of(this.settings), this::keepAliveRounds);
		Arrays.fill(this.byIndex, null);
		for (String name : this.electionNames) {
			join(name);
		}
		this.groups = PartitionGroupsWithoutThreads.create(this.simulation.database().pins(this.connection),
				processClock, this::balancingSteps);
		joinGroup();
		this.simulation.trace(this.instanceId,
				"started as " + instanceId + " (rank " + rank + ", drift " + String.format("%.4f", drift) + ")");
		this.service.start();
	}

	/**
	 * The service's heartbeat rounds and watchdog checks as events of this process: the
	 * first round within a renew interval, each next a renew interval after the previous
	 * one started; the watchdog every quarter renew interval; listener callbacks at once.
	 */
	private ElectionService.Scheduled scheduled(Runnable round, Runnable watchdog, ElectionSettings settings) {
		long renew = settings.renewInterval().toNanos();
		int generation = this.generation;
		Runnable[] rounds = new Runnable[1];
		rounds[0] = () -> round(round, rounds[0], true);
		this.simulation.schedule(this.simulation.now() + (long) (this.simulation.random().nextDouble() * renew), this,
				generation, rounds[0]);
		boolean[] watching = { true };
		Runnable[] checks = new Runnable[1];
		checks[0] = () -> {
			if (watching[0]) {
				watchdog.run();
				this.simulation.schedule(this.simulation.now() + renew / 4, this, generation, checks[0]);
			}
		};
		this.simulation.schedule(this.simulation.now() + renew / 4, this, generation, checks[0]);
		return new ElectionService.Scheduled() {

			@Override
			public void extraRound(Runnable extra) {
				Runnable[] once = new Runnable[1];
				once[0] = () -> round(extra, once[0], false);
				SimulatedNode.this.simulation.schedule(SimulatedNode.this.simulation.now(), SimulatedNode.this,
						generation, once[0]);
			}

			@Override
			public void stopRounds() {
				// The stop waited for the round under way (see stop()).
				SimulatedNode.this.roundsStopped = true;
			}

			@Override
			public void stop(Duration wait) {
				watching[0] = false;
			}

			@Override
			public void runCallback(Runnable callback) {
				callback.run();
			}

			@Override
			public boolean waitsForFirstPreparation() {
				return false;
			}

		};
	}

	/**
	 * Join an election, as the application does with {@link ElectionService#election}.
	 */
	void join(String name) {
		if (!this.running) {
			return;
		}
		if (this.byIndex[this.electionNames.indexOf(name)] == null) {
			this.simulation.trace(this.instanceId, "joins " + name);
		}
		this.byIndex[this.electionNames.indexOf(name)] = this.service.election(name);
	}

	/** Leave an election with {@link ElectionService#leave}. */
	void leave(String name) {
		Election left = this.running ? this.service.findElection(name) : null;
		if (left == null || monitorHeld(left)) {
			return;
		}
		this.byIndex[this.electionNames.indexOf(name)] = null;
		this.simulation.trace(this.instanceId, "leaves " + name);
		boolean duringFaults = this.simulation.faultPhase();
		this.service.leave(name);
		if (duringFaults && !this.simulation.faultPhase()) {
			// Left during the faults, done after them (its release waited): a join of the
			// election since (the heal's) may have been undone by the leave's removal of
			// the candidacy; the node joins again once a read shows it missing, within
			// two rounds (seed 20094587).
			this.simulation.faultEndedLate(this.simulation.now() + 2 * this.settings.renewInterval().toNanos());
		}
	}

	/**
	 * A heartbeat round of the service, on its heartbeat thread; then, if it is the
	 * regular one, the next a renew interval after this one started.
	 */
	private void round(Runnable round, Runnable again, boolean regular) {
		if (this.roundsStopped) {
			return;
		}
		for (Election election : this.service.elections()) {
			if (monitorHeld(election)) {
				// A release of that election holds its monitor further up: the round
				// waits for it,
				// which counts as a round under way (a hidden pause once it lasts).
				if (this.roundStartedAt < 0) {
					this.roundStartedAt = this.simulation.now();
				}
				this.simulation.schedule(this.simulation.now() + 1_000_000L, this, this.generation, again);
				return;
			}
		}
		if (this.inRound) {
			// The heartbeat's one thread is in a round further up: this one comes right
			// after it.
			this.afterRound.add(again);
			return;
		}
		int generation = this.generation;
		// A round that waited for a release's monitor started when it was first due.
		long ranAt = this.simulation.now();
		long started = (this.roundStartedAt >= 0) ? this.roundStartedAt : ranAt;
		this.inRound = true;
		this.roundStartedAt = started;
		try {
			round.run();
		}
		finally {
			if (this.generation == generation) {
				this.inRound = false;
				this.roundStartedAt = -1;
				if (this.simulation.now() - started > this.settings.renewInterval().toNanos()) {
					this.lateRoundEndedAt = this.simulation.now();
				}
				this.afterRound
					.forEach((waiting) -> this.simulation.schedule(this.simulation.now(), this, generation, waiting));
				this.afterRound.clear();
			}
		}
		if (regular) {
			long next = Math.max(this.simulation.now(), ranAt + this.settings.renewInterval().toNanos());
			this.simulation.schedule(next, this, generation, again);
		}
	}

	/**
	 * The balancing steps of the partition group as events of this process: the first at
	 * once, each next a renew interval after the previous one ended.
	 */
	private Runnable balancingSteps(Runnable step, Duration interval) {
		boolean[] stopped = { false };
		int generation = this.generation;
		Runnable[] next = new Runnable[1];
		next[0] = () -> {
			if (!stopped[0]) {
				step.run();
				this.simulation.schedule(this.simulation.now() + interval.toNanos(), this, generation, next[0]);
			}
		};
		this.simulation.schedule(this.simulation.now(), this, generation, next[0]);
		return () -> stopped[0] = true;
	}

	/**
	 * Join the simulation's partition group and start balancing, if this process is not a
	 * member.
	 */
	void joinGroup() {
		if (!this.running || this.group != null || this.simulation.partitions() == 0) {
			return;
		}
		if (Thread.holdsLock(this.groups)) {
			// A close of the group holds the registry's monitor further up (its leaves
			// wait for the database): in a process, this call would wait for it.
			this.simulation.schedule(this.simulation.now() + 1_000_000L, this, this.generation, this::joinGroup);
			return;
		}
		this.group = this.groups.create(this.service, Simulation.PARTITION_GROUP, this.simulation.partitions(),
				Simulation.PARTITION_SETTINGS);
		this.group.start();
	}

	/** Leave the simulation's partition group ({@link PartitionGroups#close}). */
	void leaveGroup() {
		if (!this.running || this.group == null || Thread.holdsLock(this.groups)
				|| this.service.elections().stream().anyMatch(SimulatedNode::monitorHeld)) {
			return;
		}
		this.simulation.trace(this.instanceId, "leaves the partition group");
		this.group = null;
		this.groups.close(Simulation.PARTITION_GROUP);
	}

	/**
	 * An operator pins a partition to a node, or unpins it, through this node's endpoint.
	 * @param partition the partition
	 * @param target the node, or {@code null} to unpin
	 */
	void pin(int partition, @Nullable String target) {
		PartitionGroup current = this.running ? this.group : null;
		if (current == null) {
			return;
		}
		try {
			if (target != null) {
				current.pin(partition, target);
			}
			else {
				current.unpin(partition);
			}
			this.simulation.trace(this.instanceId, ((target != null) ? "pinned " : "unpinned ") + "partition "
					+ partition + ((target != null) ? " to " + target : ""));
		}
		catch (RuntimeException ex) {
			this.simulation.trace(this.instanceId, "pin of partition " + partition + " refused: " + ex.getMessage());
		}
	}

	/**
	 * Whether this process believes it owns a partition now
	 * ({@link PartitionGroup#isOwner}).
	 * @param partition the partition
	 * @return {@code true} if so
	 */
	boolean owns(int partition) {
		PartitionGroup current = group();
		return current != null && current.isOwner(partition);
	}

	/**
	 * @return the running process's member of the partition group, or {@code null}
	 */
	@Nullable PartitionGroup group() {
		return this.running ? this.group : null;
	}

	/**
	 * @return how this process sees a partition, for a report
	 */
	String describePartition(int partition) {
		PartitionGroup current = this.running ? this.group : null;
		if (current == null) {
			return this.instanceId + ": no member";
		}
		Election election = current.election(partition);
		return this.instanceId + ": candidate " + election.loop().candidate() + ", last seen "
				+ election.lastSeenLease()
					.map((sighting) -> sighting.lease().leaderId() + "/" + sighting.lease().term())
					.orElse("nothing")
				+ ", target " + current.status().partitions().get(partition).target();
	}

	/**
	 * @return the term this process owns a partition with, or -1
	 */
	long partitionTerm(int partition) {
		PartitionGroup current = this.group;
		return (current != null) ? current.term(partition) : -1;
	}

	/**
	 * Whether a caller further up the simulation's one thread holds the election's
	 * monitor: in a process, this caller would wait for it.
	 */
	private static boolean monitorHeld(Election election) {
		return Thread.holdsLock(election.loop());
	}

	/**
	 * The application's fenced work on an election this node leads.
	 * @param name the election
	 * @param workNanos how long the work keeps the transaction open
	 */
	void fencedWork(String name, long workNanos) {
		Election election = this.service.findElection(name);
		if (election == null || !election.isLeader()) {
			return;
		}
		int generation = this.generation;
		try {
			election.runFenced((term) -> {
				this.simulation.advanceTo(this.simulation.now() + workNanos);
				resume(generation);
				return null;
			});
		}
		catch (RuntimeException ex) {
			// Not the leader any more, or the commit failed: nothing committed.
			this.simulation.trace(this.instanceId, "fenced work on " + name + " not committed: " + ex.getMessage());
		}
	}

	/**
	 * An operator forces leadership of an election to a node, through this node's
	 * endpoint.
	 */
	void forceLeader(String name, String target) {
		Election election = this.service.findElection(name);
		if (election == null) {
			return;
		}
		try {
			election.forceLeader(target);
			this.simulation.trace(this.instanceId, "forced leader of " + name + " to " + target);
		}
		catch (RuntimeException ex) {
			this.simulation.trace(this.instanceId, "force leader of " + name + " refused: " + ex.getMessage());
		}
	}

	/** An operator asks for a re-election, through this node's endpoint. */
	void forceReelection(String name) {
		Election election = this.service.findElection(name);
		if (election == null) {
			return;
		}
		try {
			election.forceReelection();
		}
		catch (RuntimeException ex) {
			this.simulation.trace(this.instanceId, "re-election of " + name + " refused: " + ex.getMessage());
		}
	}

	/** The application releases an election this node may lead. */
	void release(String name) {
		Election election = this.service.findElection(name);
		if (election == null || monitorHeld(election)) {
			return;
		}
		election.release();
	}

	/**
	 * Start the keep-alive's rounds of the running process in simulated time, each a
	 * renew interval after the previous one ended, as the keeper's thread runs them.
	 * @return what stops them
	 */
	private Runnable keepAliveRounds(Runnable round, Duration interval) {
		boolean[] stopped = { false };
		int generation = this.generation;
		Runnable[] next = new Runnable[1];
		next[0] = () -> {
			if (stopped[0]) {
				return;
			}
			if (this.holdings.stream().anyMatch((holding) -> Thread.holdsLock(holding.lock()))) {
				// A statement of a run's own on one of the kept locks is under way
				// further up the simulation's one thread: in a process, the keeper would
				// wait for it (here a little longer, which only delays the renewal).
				this.simulation.schedule(this.simulation.now() + 20_000_000L, this, generation, next[0]);
				return;
			}
			round.run();
			this.simulation.schedule(this.simulation.now() + interval.toNanos(), this, generation, next[0]);
		};
		this.simulation.schedule(this.simulation.now() + interval.toNanos(), this, generation, next[0]);
		return () -> stopped[0] = true;
	}

	/**
	 * The application runs a task under a cluster lock, if it gets it: the task takes
	 * simulated time, may keep the lock alive or extend it, and does fenced work.
	 * @param name the lock's name
	 * @param work what the run does
	 */
	void lockRun(String name, LockWork work) {
		if (!this.running) {
			return;
		}
		int generation = this.generation;
		long startedAt = this.simulation.now();
		LockHolding[] holding = new LockHolding[1];
		try {
			int permits = Simulation.permits(name);
			ClusterLocks.LockedTask task = (lock) -> {
				// The row it holds: the lock's own, or that of another of its permits.
				holding[0] = new LockHolding(lock.name(), lock, startedAt, this.simulation.now());
				this.holdings.add(holding[0]);
				this.simulation.trace(this.instanceId,
						"runs under lock " + name + " term " + lock.term() + " for " + work.steps().length + " steps");
				if (work.keepAliveFor() != null) {
					lock.keepAlive(work.keepAliveFor());
				}
				for (LockStep step : work.steps()) {
					this.simulation.advanceTo(this.simulation.now() + step.nanos());
					resume(generation);
					if (step.extendFor() != null) {
						lock.extend(step.extendFor());
					}
					if (step.fencedNanos() > 0) {
						try {
							lock.runFenced((term) -> {
								this.simulation.advanceTo(this.simulation.now() + step.fencedNanos());
								resume(generation);
								return null;
							});
						}
						catch (RuntimeException ex) {
							// Not held any more, or the commit failed: nothing committed.
							this.simulation.trace(this.instanceId,
									"fenced run under lock " + name + " not committed: " + ex.getMessage());
						}
					}
				}
			};
			boolean ran = (permits == 1)
					? this.locks.runLocked(name, work.atMostFor(), work.atLeastFor(), work.release(), task)
					: this.locks.runLocked(name, permits, work.atMostFor(), work.atLeastFor(), work.release(), task);
			if (!ran) {
				this.simulation.trace(this.instanceId, "lock " + name + " not taken");
			}
		}
		catch (RuntimeException ex) {
			// An extension threw: the run fails, and its lock is released if it was to
			// be.
			this.simulation.trace(this.instanceId, "run under lock " + name + " failed: " + ex.getMessage());
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			if (holding[0] != null && this.generation == generation) {
				this.holdings.remove(holding[0]);
			}
		}
	}

	/**
	 * An operator releases a lock, whoever holds it, through this node's endpoint.
	 * @param name the lock's name
	 */
	void forceRelease(String name) {
		if (!this.running) {
			return;
		}
		// From the send on: the release may apply, also if its answer is lost.
		this.simulation.checker().lockForceReleased(name);
		try {
			this.locks.forceRelease(name);
		}
		catch (RuntimeException ex) {
			this.simulation.trace(this.instanceId, "release of lock " + name + " failed: " + ex.getMessage());
		}
	}

	/**
	 * Try a lock once, as a fresh run would, and give it back at once.
	 * @param name the lock's name
	 * @return whether it was taken
	 */
	boolean tryLockOnce(String name) {
		return this.locks.tryLock(name, Duration.ofSeconds(1), Duration.ZERO).map(HeldLock::release).isPresent();
	}

	/**
	 * Try one of a lock's permits once, as a fresh run would, and give it back at once.
	 * @param name the lock's name
	 * @param permits how many permits it has
	 * @return whether one was taken
	 */
	boolean tryPermitOnce(String name, int permits) {
		return this.locks.tryPermit(name, permits, Duration.ofSeconds(1), Duration.ZERO)
			.map(HeldLock::release)
			.isPresent();
	}

	/**
	 * @return the lock runs under way in this process, if it runs
	 */
	List<LockHolding> holdings() {
		return this.running ? this.holdings : List.of();
	}

	/** Stop the process: nothing more it does reaches the database. */
	void crash() {
		if (!this.running) {
			return;
		}
		this.simulation.trace(this.instanceId, "crashed");
		end();
	}

	/**
	 * Stop gracefully, as {@link ElectionService#stop} does: after the round under way,
	 * release every lease and leave every election, then end.
	 */
	void stop() {
		// A stop that waited for a round past the fault phase is dropped: the quiet phase
		// starts with every process up.
		if (!this.running || !this.simulation.faultPhase()) {
			return;
		}
		if (this.inRound || this.service.elections().stream().anyMatch(SimulatedNode::monitorHeld)) {
			this.simulation.schedule(this.simulation.now() + 1_000_000L, this, this.generation, this::stop);
			return;
		}
		this.simulation.trace(this.instanceId, "stopping");
		if (this.group != null) {
			// The application's context stops the groups' balancing before the election
			// service.
			this.group.stop();
		}
		this.service.stop();
		this.locks.close();
		end();
		if (!this.simulation.faultPhase()) {
			// The faults ended while the stop's statements waited, and the heal found
			// this process still running: it starts again now, as every process is up in
			// the quiet phase (seed 20003464 of the bounded-liveness check: partition 1
			// handed to node c, which no process ran to the end).
			this.simulation.at(this.simulation.now(), "restart " + this.id + " after its stop", () -> {
				if (!this.running) {
					start();
				}
			});
		}
	}

	private void end() {
		for (Election election : this.service.elections()) {
			election.loop().halt();
		}
		this.group = null;
		this.running = false;
		this.generation++;
		this.holdings.clear();
	}

	/**
	 * For a scripted scenario: pause the process when it is about to send a statement.
	 * @param statement the statement's name
	 * @param nanos how long
	 */
	void pauseBeforeSending(String statement, long nanos) {
		this.pauseBefore = statement;
		this.pauseBeforeNanos = nanos;
	}

	/**
	 * For a scripted scenario: pause the process as the answer to a statement arrives, so
	 * that it acts on that answer only when it resumes.
	 * @param statement the statement's name
	 * @param nanos how long
	 */
	void pauseOnAnswer(String statement, long nanos) {
		this.pauseOnAnswer = statement;
		this.pauseOnAnswerNanos = nanos;
	}

	void beforeSending(String statement) {
		if (statement.equals(this.pauseBefore)) {
			this.pauseBefore = null;
			pause(this.pauseBeforeNanos);
		}
	}

	void onAnswer(String statement) {
		if (statement.equals(this.pauseOnAnswer)) {
			this.pauseOnAnswer = null;
			pause(this.pauseOnAnswerNanos);
		}
	}

	/**
	 * Pause every thread of the process for a while (a long GC pause, SIGSTOP).
	 * @param nanos how long
	 */
	void pause(long nanos) {
		this.pausedUntil = Math.max(this.pausedUntil, this.simulation.now() + nanos);
		this.simulation.trace(this.instanceId, "paused for " + nanos / 1_000_000 + " ms");
	}

	/**
	 * A call of this process returns: after its pause, if it paused meanwhile; never, if
	 * it ended.
	 * @param generation the process that made the call
	 */
	void resume(int generation) {
		while (true) {
			if (this.generation != generation) {
				throw new Simulation.ProcessEnded();
			}
			if (this.pausedUntil <= this.simulation.now()) {
				return;
			}
			this.simulation.advanceTo(this.pausedUntil);
		}
	}

	/**
	 * Whether this process believes it leads an election now, on its own clock.
	 * @param name the election
	 * @return {@code true} if so
	 */
	boolean believes(String name) {
		Election election = this.running ? this.service.findElection(name) : null;
		return election != null && election.isLeader();
	}

	/**
	 * Whether this process believes it leads an election now, on its own clock.
	 * @param index the election's index among the simulation's election names
	 * @return {@code true} if so
	 */
	boolean believes(int index) {
		Election election = this.byIndex[index];
		return this.running && election != null && election.isLeader();
	}

	long term(String name) {
		Election election = this.service.findElection(name);
		return (election != null) ? election.term() : -1;
	}

	/**
	 * A lock run under way, as its task sees it.
	 *
	 * @param name the name of the row it holds: the lock's, or that of another of its
	 * permits ({@link HeldLock#name()})
	 * @param lock the acquisition
	 * @param startedAt simulated time the run started, before its try was sent
	 * @param acquiredAt simulated time the try's answer arrived
	 */
	record LockHolding(String name, HeldLock lock, long startedAt, long acquiredAt) {
	}

	/**
	 * What a lock run does.
	 *
	 * @param atMostFor its {@code atMostFor}
	 * @param atLeastFor its {@code atLeastFor}
	 * @param release whether it releases the lock when it ends
	 * @param keepAliveFor the {@code maxFor} of a keep-alive, or {@code null} for none
	 * @param steps its steps, one after the other
	 */
	record LockWork(Duration atMostFor, Duration atLeastFor, boolean release, @Nullable Duration keepAliveFor,
			LockStep[] steps) {
	}

	/**
	 * One step of a lock run.
	 *
	 * @param nanos how long it works first
	 * @param extendFor the {@code atMostFor} of an extension then, or {@code null}
	 * @param fencedNanos how long a fenced transaction then works, or 0 for none
	 */
	record LockStep(long nanos, @Nullable Duration extendFor, long fencedNanos) {
	}

}
