package io.github.dbleader.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.dbleader.election.observation.FencedTransactionObservation;
import io.github.dbleader.election.observation.FencedTransactionObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every election of this node: one heartbeat thread that sends the statements of all
 * elections at once every renew interval (a fixed number of statements whatever the
 * number of elections), one watchdog thread, one thread for listener callbacks. Elections
 * are joined on first use with {@link #election(String)} and left with
 * {@link #leave(String)}, also while the service runs. Start with {@link #start()};
 * {@link #stop()} releases every lease this node holds so that successors take over
 * within a renew interval.
 */
public final class ElectionService implements AutoCloseable {

	/** Longest election name the lease table accepts ({@link ElectionNames}). */
	public static final int MAX_ELECTION_NAME_LENGTH = ElectionNames.MAX_ELECTION_NAME_LENGTH;

	/**
	 * Prefix of the lease rows of cluster locks
	 * ({@code io.github.dbleader.election.lock}), which share the lease table with
	 * elections: no election name may start with it.
	 */
	public static final String LOCK_NAME_PREFIX = ElectionNames.LOCK_NAME_PREFIX;

	/**
	 * Prefix of the elections of partition groups
	 * ({@code io.github.dbleader.election.partition}), named
	 * {@code partition:<group>:<partition>}: no other election name may start with it.
	 */
	public static final String PARTITION_NAME_PREFIX = ElectionNames.PARTITION_NAME_PREFIX;

	/** Longest node id the lease table accepts ({@link ElectionNames}). */
	public static final int MAX_NODE_ID_LENGTH = ElectionNames.MAX_NODE_ID_LENGTH;

	private static final Logger logger = LoggerFactory.getLogger(ElectionService.class);

	private final LeaseRepository repository;

	private final ElectionSettings settings;

	private final String nodeId;

	/**
	 * Tells this running instance apart from another one started with the same node id.
	 */
	private final String instanceId;

	private final LeadershipListener listener;

	private final MonotonicClock clock;

	private final Map<String, Election> elections = new ConcurrentHashMap<>();

	/** Moved on by every join and leave: the heartbeat's list of loops is made again. */
	private final AtomicLong membership = new AtomicLong();

	/** The loops of the elections as of a membership; heartbeat thread only. */
	private @Nullable Members members;

	/**
	 * The elections whose belief was announced and not revoked yet: what the watchdog
	 * checks.
	 */
	private final AnnouncedBeliefs believing;

	private final DatabaseStatus database;

	private final Heartbeat heartbeat;

	private final ListenerExecutor notifications = new ListenerExecutor(this::notifyListener);

	private final AtomicBoolean extraRoundQueued = new AtomicBoolean();

	private final DatabasePreparation preparation;

	/** Whether the preparation succeeded; only the heartbeat thread writes it. */
	private volatile boolean prepared;

	/** Counted down when the first attempt to prepare the database ends, however. */
	private final CountDownLatch firstPreparation = new CountDownLatch(1);

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	/**
	 * Whether the ordinary elections campaign ({@link #standDown()}); under
	 * {@code lifecycleMonitor}.
	 */
	private boolean campaigning = true;

	private final Scheduling scheduling;

	/** The rounds, watchdog and notifier of the last start; {@code null} before it. */
	private volatile @Nullable Scheduled scheduled;

	/**
	 * Where the elections' fenced transactions are observed: made anew by each setter.
	 */
	private volatile FencedTransactionObservation fencedTransactionObservation = FencedTransactionObservation.NONE;

	/**
	 * Most changes of holder one heartbeat carries out in one batch (one transaction of a
	 * few statements): take-overs of a crashed node's leases, hand-overs, yields and
	 * re-acquires. Take-overs go on batch after batch while the round's budget lasts.
	 */
	public static final int HOLDER_CHANGES_PER_BATCH = 1_000;

	/**
	 * Create a service. No thread starts and nothing is written until {@link #start()}.
	 * @param repository the lease statements
	 * @param settings timing
	 * @param nodeId this node's id: unique among running instances (ids that differ only
	 * in case are different nodes), human readable
	 * @param listener callback for leadership changes
	 * @param clock monotonic clock
	 * @throws IllegalArgumentException if the node id is blank, too long or ends with a
	 * space
	 */
	public ElectionService(LeaseRepository repository, ElectionSettings settings, String nodeId,
			LeadershipListener listener, MonotonicClock clock) {
		this(repository, settings, nodeId, listener, clock, DatabasePreparation.NONE);
	}

	/**
	 * Create a service that prepares the database before its first heartbeat. No thread
	 * starts and nothing is written until {@link #start()}.
	 * @param repository the lease statements
	 * @param settings timing
	 * @param nodeId this node's id: unique among running instances (ids that differ only
	 * in case are different nodes), human readable
	 * @param listener callback for leadership changes
	 * @param clock monotonic clock
	 * @param preparation what the database needs first; retried every renew interval
	 * until it succeeds, and no election takes part before
	 * @throws IllegalArgumentException if the node id is blank, too long or ends with a
	 * space
	 */
	public ElectionService(LeaseRepository repository, ElectionSettings settings, String nodeId,
			LeadershipListener listener, MonotonicClock clock, DatabasePreparation preparation) {
		this(repository, settings, nodeId, UUID.randomUUID().toString(), listener, clock, preparation, new Random(),
				Scheduling.THREADS);
	}

	/**
	 * Create a service whose heartbeat rounds, watchdog checks and listener callbacks run
	 * where the given scheduling runs them: the simulation of this package runs them as
	 * events in simulated time, with a seeded random and instance ids of its own.
	 */
	ElectionService(LeaseRepository repository, ElectionSettings settings, String nodeId, String instanceId,
			LeadershipListener listener, MonotonicClock clock, DatabasePreparation preparation, Random random,
			Scheduling scheduling) {
		this.instanceId = Objects.requireNonNull(instanceId, "instanceId must not be null");
		this.scheduling = Objects.requireNonNull(scheduling, "scheduling must not be null");
		this.preparation = Objects.requireNonNull(preparation, "preparation must not be null");
		this.repository = Objects.requireNonNull(repository, "repository must not be null");
		this.settings = Objects.requireNonNull(settings, "settings must not be null");
		this.nodeId = ElectionNames.nodeId(nodeId);
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.believing = new AnnouncedBeliefs(this.clock.nanoTime());
		this.database = new DatabaseStatus(this.nodeId, settings, clock);
		this.heartbeat = new Heartbeat(this.nodeId, this.instanceId, repository, settings, clock, this.database,
				listener, this.notifications, random);
	}

	/**
	 * Create a service on the system clock.
	 * @param repository the lease statements
	 * @param settings timing
	 * @param nodeId this node's id
	 * @param listener callback for leadership changes
	 */
	public ElectionService(LeaseRepository repository, ElectionSettings settings, String nodeId,
			LeadershipListener listener) {
		this(repository, settings, nodeId, listener, MonotonicClock.SYSTEM);
	}

	/**
	 * Force leadership of many of this node's elections at once, each to its own node, in
	 * a few statements ({@link LeaseRepository#requestHandoverAll}): each leader carries
	 * its request out at its next renewal, as with {@link Election#forceLeader}, in one
	 * batched hand-over per target. Unlike {@link Election#forceLeader}, the targets are
	 * not checked: the caller chose them among the live candidates it just read.
	 * @param targets by election name: the node that should lead
	 * @return how many requests were recorded (elections this node no longer leads are
	 * left alone)
	 */
	public int forceLeaders(Map<String, String> targets) {
		return targets.isEmpty() ? 0 : this.repository.requestHandoverAll(this.nodeId, targets);
	}

	/**
	 * Observe the elections' fenced transactions ({@link Election#runFenced}) in this
	 * registry, elections created before included: one observation per transaction,
	 * current while the work runs. Without a registry nothing is observed.
	 * @param observationRegistry the registry
	 * @see io.github.dbleader.election.observation.LeaderElectionObservationDocumentation#FENCED_TRANSACTION
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.fencedTransactionObservation = this.fencedTransactionObservation.withRegistry(observationRegistry);
	}

	/**
	 * Name the observations of fenced transactions, and give them key values, by this
	 * convention rather than the default one.
	 * @param convention the convention, or {@code null} for the default
	 */
	public void setFencedTransactionObservationConvention(@Nullable FencedTransactionObservationConvention convention) {
		this.fencedTransactionObservation = this.fencedTransactionObservation.withConvention(convention);
	}

	/**
	 * Set the rank of this running instance, usually the application's version: while the
	 * instances of a cluster differ in rank, a candidate that outranks the leader of an
	 * election ({@link RankOrder}) and campaigns asks it to hand its leadership over,
	 * which it does at its next renewal by the ordinary hand-over, so that a rolling
	 * deploy moves each election once, to the first instance of the new version that is
	 * ready. Equal ranks never move leadership; the partitions of a group move by their
	 * balance only. Set it before {@link #start()}: the node's row carries the rank it
	 * was written with. By default every instance has the empty rank, the lowest.
	 * @param rank the rank, at most {@value RankOrder#MAX_RANK_LENGTH} characters
	 * @throws IllegalArgumentException if the rank is longer
	 * @throws IllegalStateException if the service was started
	 */
	public void setRank(String rank) {
		Objects.requireNonNull(rank, "rank must not be null");
		if (rank.length() > RankOrder.MAX_RANK_LENGTH) {
			throw new IllegalArgumentException("rank must be at most " + RankOrder.MAX_RANK_LENGTH
					+ " characters, but '" + rank + "' has " + rank.length());
		}
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				throw new IllegalStateException("the rank must be set before the election service starts");
			}
			this.heartbeat.setRank(rank);
		}
	}

	/**
	 * @return the rank of this running instance ({@link #setRank(String)})
	 */
	public String rank() {
		return this.heartbeat.rank();
	}

	/**
	 * @return this node's id
	 */
	public String nodeId() {
		return this.nodeId;
	}

	/**
	 * @return the timing of every election
	 */
	public ElectionSettings settings() {
		return this.settings;
	}

	/**
	 * Return the election of that name, joining it on first use. Once the service runs, a
	 * new election starts competing at the next heartbeat, which comes at once.
	 * @param name election name: 1 to 128 characters, not ending with a space; names that
	 * differ only in case or accents are different elections
	 * @return the election
	 * @throws IllegalArgumentException if the name is blank, too long, ends with a space,
	 * or starts with {@value #LOCK_NAME_PREFIX} or {@value #PARTITION_NAME_PREFIX}
	 */
	public Election election(String name) {
		Election existing = this.elections.get(name);
		if (existing != null) {
			return existing;
		}
		ElectionNames.election(name);
		return join(name, TakeOverPolicy.ALWAYS, LeadershipListener.NONE);
	}

	/**
	 * Return the election of one partition of a partition group, joining it on first use;
	 * meant for {@code io.github.dbleader.election.partition}, which names the groups and
	 * chooses the policy. The election is an ordinary one: the heartbeat batches it with
	 * all others.
	 * @param name election name, starting with {@value #PARTITION_NAME_PREFIX}
	 * @param takeOverPolicy whether this node may take a free lease of the partition
	 * @return the election
	 * @throws IllegalArgumentException if the name is too long, ends with a space, or
	 * does not start with {@value #PARTITION_NAME_PREFIX}
	 */
	public Election partitionElection(String name, TakeOverPolicy takeOverPolicy) {
		return partitionElection(name, takeOverPolicy, LeadershipListener.NONE);
	}

	/**
	 * Return the election of one partition of a partition group, joining it on first use
	 * with a listener of its own; meant for
	 * {@code io.github.dbleader.election.partition}, whose group learns so which of its
	 * partitions this node gained and lost without reading partition numbers back out of
	 * election names.
	 * @param name election name, starting with {@value #PARTITION_NAME_PREFIX}
	 * @param takeOverPolicy whether this node may take a free lease of the partition
	 * @param listener told of this election's changes only ({@code granted},
	 * {@code revoked}, {@code leaderChanged}), after the service's listener, on the same
	 * notification thread and in the same order; ignored if the election was joined
	 * before
	 * @return the election
	 * @throws IllegalArgumentException if the name is too long, ends with a space, or
	 * does not start with {@value #PARTITION_NAME_PREFIX}
	 */
	public Election partitionElection(String name, TakeOverPolicy takeOverPolicy, LeadershipListener listener) {
		Objects.requireNonNull(takeOverPolicy, "takeOverPolicy must not be null");
		Objects.requireNonNull(listener, "listener must not be null");
		Election existing = this.elections.get(name);
		if (existing != null) {
			return existing;
		}
		ElectionNames.partitionElection(name);
		return join(name, takeOverPolicy, listener);
	}

	private Election join(String name, TakeOverPolicy takeOverPolicy, LeadershipListener electionListener) {
		LeadershipListener listener = (electionListener != LeadershipListener.NONE)
				? new ElectionListeners(this.listener, electionListener) : this.listener;
		synchronized (this.lifecycleMonitor) {
			return this.elections.computeIfAbsent(name, (key) -> {
				ElectionLoop loop = new ElectionLoop(key, this.nodeId, this.settings, this.clock, listener,
						this.notifications, this.database, takeOverPolicy, this.believing);
				Election created = new Election(loop, this.nodeId, this.repository, this.settings, this.heartbeat,
						() -> this.fencedTransactionObservation);
				loop.placeByRank(!isPartition(key));
				if (!this.campaigning && !isPartition(key)) {
					loop.campaign(false);
				}
				queueExtraRound();
				this.membership.incrementAndGet();
				return created;
			});
		}
	}

	/**
	 * One extra round soon, if the service runs, for however many changes are asked for
	 * meanwhile (elections joined, a campaign resumed). Call under
	 * {@code lifecycleMonitor}.
	 */
	private void queueExtraRound() {
		if (this.running && this.extraRoundQueued.compareAndSet(false, true)) {
			Objects.requireNonNull(this.scheduled).extraRound(() -> {
				this.extraRoundQueued.set(false);
				runHeartbeat();
			});
		}
	}

	private static boolean isPartition(String election) {
		return election.startsWith(PARTITION_NAME_PREFIX);
	}

	/**
	 * Stand down from every election of this node, until {@link #campaign()}: it stops
	 * believing it leads before this method returns
	 * ({@link RevocationReason#STOOD_DOWN}), and the heartbeat, which comes at once,
	 * makes the leases it held vacant in a few statements, so that other nodes take over
	 * within a renew interval ({@link #stop()} releases them too). From then on the node
	 * takes no lease: it creates none, takes none over, and passes a hand-over to it on
	 * at once. It stays among the candidates and goes on following the leases (events of
	 * changes of leader, {@link Election#leaderInfo()}). Elections joined meanwhile stand
	 * down too. Also before {@link #start()}, so that the node campaigns only once the
	 * application is ready for it. The elections of partition groups are not affected: a
	 * group balances its partitions among its members, and a member leaves a group to
	 * give its partitions up. Does nothing if the node already stands down.
	 */
	public void standDown() {
		synchronized (this.lifecycleMonitor) {
			if (!this.campaigning) {
				return;
			}
			this.campaigning = false;
			campaignInOrdinaryElections(false);
			queueExtraRound();
		}
		logger.info("Node '{}' standing down: it gives up its leadership and campaigns in none of its elections "
				+ "until asked to campaign again", this.nodeId);
	}

	/**
	 * Campaign again in every election after {@link #standDown()}: a lease that is free,
	 * or that this node has seen expired for a whole lease meanwhile, is taken at the
	 * next heartbeat, which comes at once; a lease it gave up itself, after the others
	 * had a lease to take it (as after {@link Election#release()}). Does nothing if the
	 * node campaigns.
	 */
	public void campaign() {
		synchronized (this.lifecycleMonitor) {
			if (this.campaigning) {
				return;
			}
			this.campaigning = true;
			campaignInOrdinaryElections(true);
			queueExtraRound();
		}
		logger.info("Node '{}' campaigning again", this.nodeId);
	}

	/**
	 * Tell every election but the partitions' whether to campaign. Call under
	 * {@code lifecycleMonitor}, so that the last of two calls from different threads
	 * wins.
	 */
	private void campaignInOrdinaryElections(boolean campaigning) {
		for (Election election : this.elections.values()) {
			if (!isPartition(election.name())) {
				election.loop().campaign(campaigning);
			}
		}
	}

	/**
	 * Whether this node campaigns in its elections: {@code false} from
	 * {@link #standDown()} to {@link #campaign()}.
	 * @return {@code true} unless standing down
	 */
	public boolean isCampaigning() {
		synchronized (this.lifecycleMonitor) {
			return this.campaigning;
		}
	}

	/**
	 * Leave an election: if this node leads it, it gives the lease up first (another node
	 * takes over within a renew interval), then it leaves the candidates. The
	 * {@link Election} object obtained before no longer leads and cannot run fenced work;
	 * {@link #election(String)} joins again with a new one. Rows of elections that no
	 * node runs any more are deleted after ten leases.
	 * @param name election name
	 * @return whether this node had joined the election
	 */
	public boolean leave(String name) {
		Election left;
		synchronized (this.lifecycleMonitor) {
			left = this.elections.remove(name);
			this.membership.incrementAndGet();
		}
		if (left == null) {
			return false;
		}
		this.heartbeat.release(left.loop(), RevocationReason.LEFT, false);
		logger.info("Election '{}': node '{}' left", name, this.nodeId);
		return true;
	}

	/**
	 * Return the election of that name if it was created.
	 * @param name election name
	 * @return the election, or {@code null}
	 */
	public @Nullable Election findElection(String name) {
		return this.elections.get(name);
	}

	/**
	 * @return every election created so far
	 */
	public Collection<Election> elections() {
		return Collections.unmodifiableCollection(this.elections.values());
	}

	/**
	 * Start competing in every election created so far and in those created later. The
	 * database is prepared first, on the heartbeat thread; this method waits for the
	 * first attempt at most a lease duration.
	 */
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			this.running = true;
			this.scheduled = this.scheduling.start(this::runHeartbeat, this::checkDeadlines, this.settings);
			logger.info("Leader election started for node '{}' (lease {}, renew interval {}, guard {})", this.nodeId,
					this.settings.leaseDuration(), this.settings.renewInterval(), this.settings.guard());
		}
		if (this.scheduled.waitsForFirstPreparation()) {
			awaitFirstPreparation();
		}
	}

	/**
	 * Wait for the first attempt to prepare the database, at most a lease duration: a
	 * database that answers has its tables when {@link #start()} returns, as the
	 * application's code that runs next may expect (a renew interval was too short for a
	 * busy machine, and calls right after start-up failed on missing tables); one that
	 * refuses connections ends the attempt at once, and one that hangs delays the start
	 * by a lease at most.
	 */
	private void awaitFirstPreparation() {
		try {
			this.firstPreparation.await(this.settings.leaseDuration().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Whether this node waits for its database before it joins any election: the
	 * {@link DatabasePreparation} has failed and not succeeded since. Meanwhile no
	 * election leads and every {@link Election#isDatabaseReachable()} is {@code false}.
	 * @return {@code true} while waiting
	 */
	public boolean isWaitingForDatabase() {
		return this.database.waiting();
	}

	/**
	 * How many heartbeat rounds of this node failed with a failure of the given kind (the
	 * kind of the round's first failed statement), since the service was created; the
	 * attempts to prepare the database before the first round are not counted. The meters
	 * read it.
	 * @param kind the kind of failure
	 * @return the number of rounds
	 */
	public long failedHeartbeatRounds(DatabaseFailureKind kind) {
		return this.database.failedRounds(kind);
	}

	/**
	 * @return whether the service runs
	 */
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Stop: release every lease this node holds (I10), leave the candidates, and stop the
	 * threads. The caller's DataSource must still be open.
	 */
	public void stop() {
		stop(true);
	}

	/**
	 * Stop without releasing: leases expire on their own. Meant for tests that simulate a
	 * crash of this node.
	 */
	public void halt() {
		stop(false);
	}

	private void stop(boolean release) {
		List<Election> stopping;
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			stopping = new ArrayList<>(this.elections.values());
		}
		Scheduled threads = Objects.requireNonNull(this.scheduled);
		// Wait for a round under way, so that no change of holder races the release.
		threads.stopRounds();
		List<ElectionLoop> loops = stopping.stream().map(Election::loop).toList();
		if (release && this.prepared) {
			// Unprepared, this node never took part: nothing to release.
			this.heartbeat.releaseAll(loops);
		}
		else {
			loops.forEach(ElectionLoop::halt);
		}
		threads.stop(this.settings.renewInterval());
		logger.info("Leader election stopped for node '{}'", this.nodeId);
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * The loops of the elections, made again only after a join or leave: a node with
	 * 100,000 elections would otherwise make a list of them every round.
	 */
	private List<ElectionLoop> loops() {
		Members current = this.members;
		long now = this.membership.get();
		if (current == null || current.membership() != now) {
			// A join that the list misses moved the count on after it was read: the next
			// round makes it again.
			current = new Members(now, this.elections.values().stream().map(Election::loop).toList());
			this.members = current;
		}
		return current.loops();
	}

	private record Members(long membership, List<ElectionLoop> loops) {
	}

	/**
	 * One heartbeat round, on the heartbeat's thread; package-private for the simulation.
	 */
	void runHeartbeat() {
		if (!this.running) {
			return;
		}
		try {
			if (this.prepared || prepare()) {
				this.heartbeat.run(loops());
			}
		}
		catch (Throwable ex) {
			// A failed round must not end the schedule.
			logger.error("Node '{}': heartbeat failed unexpectedly", this.nodeId, ex);
		}
	}

	/**
	 * Prepare the database, once: until it succeeds no election sends a statement, so
	 * none leads; the watchdog and the health see the wait.
	 * @return whether the database is prepared
	 */
	private boolean prepare() {
		this.database.roundStarted(this.clock.nanoTime());
		try {
			this.preparation.prepare();
			this.database.prepared();
			this.prepared = true;
			return true;
		}
		catch (RuntimeException ex) {
			this.database.preparationFailed(ex);
			return false;
		}
		finally {
			this.database.roundEnded();
			this.firstPreparation.countDown();
		}
	}

	/** One check of the watchdog, on its thread; package-private for the simulation. */
	void checkDeadlines() {
		// The led elections only (a node with thousands of elections follows most of
		// them), and only once the earliest of their beliefs may end.
		this.believing.check(this.clock.nanoTime());
	}

	private void notifyListener(Runnable callback) {
		Scheduled current = this.scheduled;
		if (current != null) {
			current.runCallback(callback);
		}
		else {
			callback.run();
		}
	}

	/**
	 * How a started service runs its heartbeat rounds, its watchdog's checks and its
	 * listener callbacks: on threads of its own ({@link #THREADS}), or where the caller
	 * runs them (the simulation of this package, in simulated time on one thread).
	 */
	interface Scheduling {

		/**
		 * One heartbeat thread, one watchdog thread, one thread for listener callbacks.
		 */
		Scheduling THREADS = Threads::new;

		/**
		 * Start: heartbeat rounds, the first at once, each the next a renew interval
		 * after the previous one started (at once if it took longer); watchdog checks
		 * every quarter renew interval.
		 * @param round one heartbeat round
		 * @param watchdog one check of the watchdog
		 * @param settings the timing
		 * @return what runs them
		 */
		Scheduled start(Runnable round, Runnable watchdog, ElectionSettings settings);

	}

	/** The rounds, watchdog and listener callbacks of a started service. */
	interface Scheduled {

		/**
		 * Run one extra round soon, after the one under way.
		 * @param round the round
		 */
		void extraRound(Runnable round);

		/**
		 * Stop the rounds: return once the round under way ended; no other one starts.
		 */
		void stopRounds();

		/**
		 * Stop the watchdog, and the listener callbacks once those queued ran (at most
		 * for the given time); callbacks from then on run on the caller's thread.
		 * @param wait how long to wait for queued callbacks
		 */
		void stop(Duration wait);

		/**
		 * Run a listener callback.
		 * @param callback the callback
		 */
		void runCallback(Runnable callback);

		/**
		 * @return whether {@link ElectionService#start()} waits for the first preparation
		 */
		boolean waitsForFirstPreparation();

	}

	/** The service's own threads. */
	private static final class Threads implements Scheduled {

		private final ScheduledThreadPoolExecutor scheduler;

		private final ScheduledExecutorService watchdog;

		private final ExecutorService notifier;

		private final Runnable round;

		private final long renewNanos;

		Threads(Runnable round, Runnable watchdog, ElectionSettings settings) {
			this.round = round;
			this.renewNanos = settings.renewInterval().toNanos();
			this.scheduler = new ScheduledThreadPoolExecutor(1, threads("leader-election-heartbeat"));
			// On stop, the next round that is already scheduled is dropped, not awaited.
			this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
			this.watchdog = Executors.newSingleThreadScheduledExecutor(threads("leader-election-watchdog"));
			this.notifier = Executors.newSingleThreadExecutor(threads("leader-election-events"));
			long period = Math.max(1, this.renewNanos / 4);
			this.watchdog.scheduleAtFixedRate(watchdog, period, period, TimeUnit.NANOSECONDS);
			this.scheduler.execute(this::roundAndReschedule);
		}

		/**
		 * One heartbeat round, then the next one a renew interval after this one started
		 * (or at once, if this one took longer). Not a fixed-rate schedule: after a long
		 * stall that would run all the missed rounds back to back.
		 */
		private void roundAndReschedule() {
			long started = System.nanoTime();
			this.round.run();
			if (!this.scheduler.isShutdown()) {
				long delay = this.renewNanos - (System.nanoTime() - started);
				try {
					this.scheduler.schedule(this::roundAndReschedule, Math.max(0, delay), TimeUnit.NANOSECONDS);
				}
				catch (RuntimeException ex) {
					// Shut down meanwhile.
				}
			}
		}

		@Override
		public void extraRound(Runnable extra) {
			this.scheduler.execute(extra);
		}

		@Override
		public void stopRounds() {
			this.scheduler.shutdown();
			try {
				this.scheduler.awaitTermination(1, TimeUnit.MINUTES);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@Override
		public void stop(Duration wait) {
			this.scheduler.shutdownNow();
			this.watchdog.shutdownNow();
			this.notifier.shutdown();
			try {
				if (!this.notifier.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
					this.notifier.shutdownNow();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.notifier.shutdownNow();
			}
		}

		@Override
		public void runCallback(Runnable callback) {
			if (!this.notifier.isShutdown()) {
				this.notifier.execute(callback);
			}
			else {
				callback.run();
			}
		}

		@Override
		public boolean waitsForFirstPreparation() {
			return true;
		}

		private static ThreadFactory threads(String name) {
			AtomicInteger count = new AtomicInteger();
			return (runnable) -> {
				Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
				thread.setDaemon(true);
				return thread;
			};
		}

	}

}
