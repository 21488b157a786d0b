package io.github.dbleader.election.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import io.github.dbleader.election.ElectionNames;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.observation.DefaultLockCallObservationConvention;
import io.github.dbleader.election.observation.FencedTransactionObservation;
import io.github.dbleader.election.observation.FencedTransactionObservationConvention;
import io.github.dbleader.election.observation.LeaderElectionObservationDocumentation;
import io.github.dbleader.election.observation.LockCallContext;
import io.github.dbleader.election.observation.LockCallObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster locks (ShedLock's model, with fencing): each run of a task takes the lock when
 * it starts, on whichever node is free, and either releases it when the run completes or
 * lets it expire. There is no standing leader, no background thread and no statement
 * between runs.
 *
 * <ul>
 * <li>A try that finds the lock taken costs one statement, which waits for no fenced run
 * of its holder; a successful one a conditional {@code UPDATE} that takes the expired
 * lock, writes its fence row and answers the new term at once (on MySQL and MariaDB after
 * a read that waits a bounded time for the previous holder's fenced runs; on H2 a short
 * transaction); a release one {@code UPDATE}.</li>
 * <li>{@code atMostFor} bounds how long a crashed holder keeps the lock (database clock).
 * The holder itself believes it holds the lock only until {@code atMostFor} minus a guard
 * of a fifth of it, from the moment before it sent the statement that took the lock, on
 * its own monotonic clock (docs/explanation/invariants.md, I2). A run that needs longer
 * {@link HeldLock#extend extends} its lock, one conditional statement, and its belief
 * with it.</li>
 * <li>{@code atLeastFor} keeps a released lock taken until that long after its
 * acquisition (database clock), so that a fast run is not repeated by a node whose
 * scheduler fires a little later.</li>
 * <li>Every acquisition gets a strictly greater term, a fencing token; work that must not
 * be done twice runs in {@link HeldLock#runFenced}, which commits only while the
 * acquisition holds the lock.</li>
 * <li>A lock expires on the database clock alone, and the first node that then tries it
 * takes it: unlike an election's follower, it has not watched the lock for a whole lease
 * on its own clock, since the first call that finds the lock free must be able to take
 * it. So a forward step of the database clock, or a failover to a server whose clock is
 * ahead, can free a held lock early, and another node may take it while the holder still
 * {@link HeldLock#isHeld believes} it holds it. The holder's {@link HeldLock#runFenced
 * fenced} work is refused from then on, and its extensions, renewals and release change
 * nothing (a kept-alive lock's holder is told within a renew interval); its other work
 * may overlap the new holder's. See docs/reference/failure-model.md.</li>
 * </ul>
 *
 * <p>
 * A lock named {@code n} is the lease table's row {@value #KEY_PREFIX}{@code n};
 * elections must not use names with that prefix.
 *
 * <p>
 * A lock may also have several permits, up to as many holders at once
 * ({@link #tryPermit}): each permit is a lock row of its own, with its own term, fenced
 * work, extensions and keep-alive.
 */
public class ClusterLocks implements AutoCloseable {

	/** Prefix of the lease table's rows that are locks, not elections. */
	public static final String KEY_PREFIX = ElectionService.LOCK_NAME_PREFIX;

	/** Longest lock name: the lease table's key holds 128 characters, prefix included. */
	public static final int MAX_NAME_LENGTH = ElectionNames.MAX_LOCK_NAME_LENGTH;

	private static final Logger logger = LoggerFactory.getLogger(ClusterLocks.class);

	/**
	 * How many free permits a try of a lock's permits takes at most: a second one when
	 * another node took the first meanwhile, and never more, so that a try costs the same
	 * number of statements whatever the number of permits.
	 */
	private static final int MAX_PERMIT_TAKES = 2;

	private static final LockCallObservationConvention DEFAULT_OBSERVATION_CONVENTION = new DefaultLockCallObservationConvention();

	private final LockRepository repository;

	private final String nodeId;

	private final MonotonicClock clock;

	private final LockRunListener listener;

	private final RunHistory history;

	private final LockKeeper keeper;

	/**
	 * Locks this instance is taking: another try of the same lock here meanwhile is
	 * skipped without a statement, so that the read of a new term after the take-over
	 * cannot see a later acquisition by this node.
	 */
	private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

	/**
	 * Counts the tries of permits, so that the runs of one node, like those of different
	 * nodes, start at different free permits.
	 */
	private final AtomicInteger permitTries = new AtomicInteger();

	private final FailingTries failingTries = new FailingTries(logger);

	/** The locks of the runs on each thread, innermost last. */
	private final ThreadLocal<@Nullable Deque<HeldLock>> current = new ThreadLocal<>();

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable LockCallObservationConvention observationConvention;

	/** Where fenced transactions are observed: made anew by the setters. */
	private volatile FencedTransactionObservation fencedTransactionObservation = FencedTransactionObservation.NONE;

	/** The longest pause before a run tries its lock; zero for none. */
	private volatile Duration runSpread = Duration.ZERO;

	/** Pauses the calling thread for a random time below the given nanoseconds. */
	private volatile LongConsumer pauseBelow = ClusterLocks::pauseBelow;

	/**
	 * Create cluster locks.
	 * @param repository the lock statements
	 * @param nodeId this node, unique among the nodes that share the locks
	 * @param clock the monotonic clock
	 */
	public ClusterLocks(LockRepository repository, String nodeId, MonotonicClock clock) {
		this(repository, nodeId, clock, Clock.systemUTC(), LockRunListener.NONE);
	}

	/**
	 * Create cluster locks that tell a listener what they do.
	 * @param repository the lock statements
	 * @param nodeId this node, unique among the nodes that share the locks
	 * @param clock the monotonic clock, for every decision
	 * @param wallClock the clock of the {@link #recentRuns recorded runs}' times, for
	 * people to read
	 * @param listener told of acquisitions, skips and runs
	 */
	public ClusterLocks(LockRepository repository, String nodeId, MonotonicClock clock, Clock wallClock,
			LockRunListener listener) {
		this(repository, nodeId, clock, wallClock, listener, KeepAliveSettings.of(ElectionSettings.defaults()));
	}

	/**
	 * Create cluster locks that tell a listener what they do and keep locks alive with
	 * the given settings ({@link HeldLock#keepAlive}).
	 * @param repository the lock statements
	 * @param nodeId this node, unique among the nodes that share the locks
	 * @param clock the monotonic clock, for every decision
	 * @param wallClock the clock of the {@link #recentRuns recorded runs}' times, for
	 * people to read
	 * @param listener told of acquisitions, skips and runs
	 * @param keepAlive how kept-alive locks are renewed (typically the election's lease
	 * and renew interval)
	 */
	public ClusterLocks(LockRepository repository, String nodeId, MonotonicClock clock, Clock wallClock,
			LockRunListener listener, KeepAliveSettings keepAlive) {
		this(repository, nodeId, clock, wallClock, listener, keepAlive, LockKeeper.THREAD);
	}

	/**
	 * Create cluster locks whose keep-alive rounds run where the given rounds start them:
	 * a simulation runs them in simulated time, without a thread.
	 */
	ClusterLocks(LockRepository repository, String nodeId, MonotonicClock clock, Clock wallClock,
			LockRunListener listener, KeepAliveSettings keepAlive, LockKeeper.Rounds rounds) {
		this.repository = Objects.requireNonNull(repository, "repository must not be null");
		this.keeper = new LockKeeper(this, Objects.requireNonNull(keepAlive, "keepAlive must not be null"), rounds);
		this.nodeId = Objects.requireNonNull(nodeId, "nodeId must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		this.history = new RunHistory(Objects.requireNonNull(wallClock, "wallClock must not be null"));
		if (nodeId.isBlank()) {
			throw new IllegalArgumentException("node id must not be blank");
		}
	}

	/**
	 * Create cluster locks on {@link MonotonicClock#SYSTEM}.
	 * @param repository the lock statements
	 * @param nodeId this node, unique among the nodes that share the locks
	 */
	public ClusterLocks(LockRepository repository, String nodeId) {
		this(repository, nodeId, MonotonicClock.SYSTEM);
	}

	/**
	 * Observe in this registry the calls under a lock ({@link #runLocked},
	 * {@link #startRun}) and the fenced transactions of the locks
	 * ({@link HeldLock#runFenced}): one observation per call, whether the lock was taken
	 * or not, and one per transaction. Without a registry nothing is observed.
	 * @param observationRegistry the registry
	 * @see LeaderElectionObservationDocumentation#LOCK_CALL
	 * @see LeaderElectionObservationDocumentation#FENCED_TRANSACTION
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = Objects.requireNonNull(observationRegistry, "observationRegistry must not be null");
		this.fencedTransactionObservation = this.fencedTransactionObservation.withRegistry(observationRegistry);
	}

	/**
	 * Name the observations of calls under a lock, and give them key values, by this
	 * convention rather than the default one.
	 * @param convention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable LockCallObservationConvention convention) {
		this.observationConvention = convention;
	}

	/**
	 * Name the observations of the locks' fenced transactions, and give them key values,
	 * by this convention rather than the default one.
	 * @param convention the convention, or {@code null} for the default
	 */
	public void setFencedTransactionObservationConvention(@Nullable FencedTransactionObservationConvention convention) {
		this.fencedTransactionObservation = this.fencedTransactionObservation.withConvention(convention);
	}

	/**
	 * Spread the runs of a lock over the nodes whose schedulers all fire for the same
	 * trigger: before a run ({@link #runLocked}, {@link #startRun}) tries its lock, it
	 * waits a random time below {@code spread} and below a quarter of the run's
	 * {@code atLeastFor}, so that every node's try still comes while the winner's run
	 * keeps the lock taken. Without it each trigger goes to the node whose scheduler
	 * fires first, by a few milliseconds, which can be the same node for most triggers. A
	 * run without {@code atLeastFor} (which does not keep its trigger from running again
	 * on a node whose scheduler fires later) and {@link #tryLock} never wait.
	 * @param spread the longest pause, zero (the default) for none
	 * @throws IllegalArgumentException if {@code spread} is negative
	 */
	public void setRunSpread(Duration spread) {
		Objects.requireNonNull(spread, "spread must not be null");
		if (spread.isNegative()) {
			throw new IllegalArgumentException("run spread (" + spread + ") must not be negative");
		}
		this.runSpread = spread;
	}

	/**
	 * @return the longest pause before a run tries its lock ({@link #setRunSpread})
	 */
	public Duration getRunSpread() {
		return this.runSpread;
	}

	/**
	 * Pause some other way than the calling thread's random sleep, e.g. to record the
	 * bounds in a test.
	 * @param pauseBelow pauses for a random time below the given nanoseconds (positive)
	 */
	void setPause(LongConsumer pauseBelow) {
		this.pauseBelow = Objects.requireNonNull(pauseBelow, "pauseBelow must not be null");
	}

	/**
	 * @return this node's id, the holder recorded in the lock rows it takes
	 */
	public String getNodeId() {
		return this.nodeId;
	}

	/**
	 * Try to take a lock. Never throws for a database failure: the outcome of a statement
	 * that failed is unknown, so it counts as not taken (and the lock, if the database
	 * did take it, expires after {@code atMostFor}).
	 * @param name the lock's name
	 * @param atMostFor how long the lock is held at most, also after a crash of this node
	 * @param atLeastFor how long after its acquisition a released lock stays taken; at
	 * most {@code atMostFor}
	 * @return the held lock, or empty if another node (or another run here) holds it
	 * @throws IllegalArgumentException if the name or the durations are invalid
	 */
	public Optional<HeldLock> tryLock(String name, Duration atMostFor, Duration atLeastFor) {
		String key = key(ElectionNames.lockName(name));
		validate(atMostFor, atLeastFor);
		return told(name, take(name, name, key, atMostFor, atLeastFor));
	}

	/**
	 * Try to take one of the permits of a lock that up to {@code permits} holders may
	 * hold at once across the cluster. Each permit is a lock of its own (the first is the
	 * lock {@code name} itself, permit {@code n > 1} the lock
	 * <code>name{@value ElectionNames#PERMIT_SEPARATOR}n</code>), so the held permit has
	 * its own term, fenced work, extensions, keep-alive and release, as a lock has, and
	 * {@link HeldLock#name()} names the permit. One permit ({@code permits == 1}) is the
	 * lock itself: this is {@link #tryLock}. With more, the try reads which of the
	 * permits are free (one statement that locks nothing), then takes one as
	 * {@link #tryLock} takes a lock, and another if a node took that one meanwhile: the
	 * statements do not grow with {@code permits}.
	 * <p>
	 * The count belongs to the caller: callers of one lock with different counts share
	 * its first permits, so at most the largest count hold it at once, and a caller with
	 * a smaller count gets a permit only while one of its own is free. Never throws for a
	 * database failure, as {@link #tryLock}.
	 * @param name the lock's name
	 * @param permits how many holders may hold the lock at once, 1 to
	 * {@value ElectionNames#MAX_PERMITS}
	 * @param atMostFor how long the permit is held at most, also after a crash of this
	 * node
	 * @param atLeastFor how long after its acquisition a released permit stays taken; at
	 * most {@code atMostFor}
	 * @return the held permit, or empty if other holders (here or elsewhere) hold every
	 * permit
	 * @throws IllegalArgumentException if the name, the count or the durations are
	 * invalid, or the permits' names would be too long ({@link ElectionNames#permitKeys})
	 */
	public Optional<HeldLock> tryPermit(String name, int permits, Duration atMostFor, Duration atLeastFor) {
		List<String> keys = ElectionNames.permitKeys(name, permits);
		validate(atMostFor, atLeastFor);
		return told(name, (permits == 1) ? take(name, name, keys.get(0), atMostFor, atLeastFor)
				: takePermit(name, keys, atMostFor, atLeastFor));
	}

	private Optional<HeldLock> told(String name, Optional<HeldLock> held) {
		if (held.isPresent()) {
			this.listener.acquired(held.get().name(), held.get().term());
		}
		else {
			this.listener.skipped(name);
		}
		return held;
	}

	private Optional<HeldLock> takePermit(String name, List<String> keys, Duration atMostFor, Duration atLeastFor) {
		List<String> free;
		try {
			free = this.repository.freeLocks(keys);
		}
		catch (RuntimeException ex) {
			this.failingTries.failed(name, "read which of its permits are free", ex);
			return Optional.empty();
		}
		this.failingTries.reached(name);
		// Tries that meet start at different free permits, so that most take the first
		// they try.
		int start = Math.floorMod(this.nodeId.hashCode() + this.permitTries.getAndIncrement(),
				Math.max(1, free.size()));
		int takes = 0;
		for (int i = 0; i < free.size() && takes < MAX_PERMIT_TAKES; i++) {
			String key = free.get((start + i) % free.size());
			if (this.inFlight.contains(key)) {
				continue;
			}
			takes++;
			Optional<HeldLock> held = take(name, key.substring(KEY_PREFIX.length()), key, atMostFor, atLeastFor);
			if (held.isPresent()) {
				return held;
			}
		}
		return Optional.empty();
	}

	/**
	 * @param lock the lock's name as the application gave it, for the log
	 * @param name the name of the row taken: the lock's, or one of its permits'
	 */
	private Optional<HeldLock> take(String lock, String name, String key, Duration atMostFor, Duration atLeastFor) {
		if (!this.inFlight.add(key)) {
			return Optional.empty();
		}
		try {
			// Before the statement is sent: a slow answer never extends the belief.
			long sentAt = this.clock.nanoTime();
			OptionalLong term = this.repository.tryLock(key, this.nodeId, atMostFor);
			this.failingTries.reached(lock);
			if (term.isEmpty()) {
				return Optional.empty();
			}
			return Optional.of(new HeldLock(this, name, key, term.getAsLong(), sentAt, atMostFor, atLeastFor));
		}
		catch (RuntimeException ex) {
			this.failingTries.failed(lock, "try it", ex);
			return Optional.empty();
		}
		finally {
			this.inFlight.remove(key);
		}
	}

	/**
	 * Run a task under a lock, or skip it if the lock is taken. The task can reach its
	 * lock through {@link #currentLock()}, for {@link HeldLock#runFenced fenced} work.
	 * @param name the lock's name
	 * @param atMostFor how long the lock is held at most
	 * @param atLeastFor how long after its acquisition the lock stays taken
	 * @param releaseAfterRun whether to release the lock when the task ends (otherwise it
	 * expires after {@code atMostFor})
	 * @param task the task
	 * @return whether the task ran
	 * @throws Exception what the task threw
	 */
	public boolean runLocked(String name, Duration atMostFor, Duration atLeastFor, boolean releaseAfterRun,
			LockedTask task) throws Exception {
		return run(startRun(name, atMostFor, atLeastFor), releaseAfterRun, task);
	}

	/**
	 * Run a task under one of the permits of a lock ({@link #tryPermit}), or skip it if
	 * other runs hold every permit: at most {@code permits} runs at once across the
	 * cluster. The task can reach its permit through {@link #currentLock()}.
	 * @param name the lock's name
	 * @param permits how many runs may run at once
	 * @param atMostFor how long the permit is held at most
	 * @param atLeastFor how long after its acquisition the permit stays taken
	 * @param releaseAfterRun whether to release the permit when the task ends (otherwise
	 * it expires after {@code atMostFor})
	 * @param task the task
	 * @return whether the task ran
	 * @throws Exception what the task threw
	 */
	public boolean runLocked(String name, int permits, Duration atMostFor, Duration atLeastFor, boolean releaseAfterRun,
			LockedTask task) throws Exception {
		return run(startRun(name, permits, atMostFor, atLeastFor), releaseAfterRun, task);
	}

	private boolean run(Optional<LockedRun> started, boolean releaseAfterRun, LockedTask task) throws Exception {
		if (started.isEmpty()) {
			return false;
		}
		LockedRun run = started.get();
		LockRun.Outcome outcome = LockRun.Outcome.FAILED;
		try (Observation.Scope scope = run.observation().openScope()) {
			task.run(run.lock());
			outcome = LockRun.Outcome.COMPLETED;
		}
		catch (Exception | Error ex) {
			run.observation().error(ex);
			throw ex;
		}
		finally {
			run.end(outcome, releaseAfterRun);
		}
		return true;
	}

	/**
	 * Start a run under a lock whose end the caller reports, for a framework that takes
	 * the lock before its task and releases it after ({@code LockProvider} of ShedLock):
	 * like {@link #runLocked}, the run is recorded ({@link #recentRuns}, the listener)
	 * and its lock is this thread's {@link #currentLock()} until {@link LockedRun#end}
	 * (on this thread or another).
	 * @param name the lock's name
	 * @param atMostFor how long the lock is held at most, also after a crash of this node
	 * @param atLeastFor how long after its acquisition a released lock stays taken; at
	 * most {@code atMostFor}
	 * @return the run, or empty if another node (or another run here) holds the lock
	 * @throws IllegalArgumentException if the name or the durations are invalid
	 */
	public Optional<LockedRun> startRun(String name, Duration atMostFor, Duration atLeastFor) {
		return startRun(name, atLeastFor, () -> tryLock(name, atMostFor, atLeastFor));
	}

	/**
	 * Start a run under one of the permits of a lock ({@link #tryPermit}) whose end the
	 * caller reports, as {@link #startRun(String, Duration, Duration)} does under a lock.
	 * @param name the lock's name
	 * @param permits how many runs may run at once
	 * @param atMostFor how long the permit is held at most, also after a crash of this
	 * node
	 * @param atLeastFor how long after its acquisition a released permit stays taken; at
	 * most {@code atMostFor}
	 * @return the run, or empty if other runs hold every permit
	 * @throws IllegalArgumentException if the name, the count or the durations are
	 * invalid
	 */
	public Optional<LockedRun> startRun(String name, int permits, Duration atMostFor, Duration atLeastFor) {
		return startRun(name, atLeastFor, () -> tryPermit(name, permits, atMostFor, atLeastFor));
	}

	private Optional<LockedRun> startRun(String name, Duration atLeastFor, Supplier<Optional<HeldLock>> take) {
		spread(atLeastFor);
		LockCallContext context = new LockCallContext(name);
		Observation observation = LeaderElectionObservationDocumentation.LOCK_CALL
			.observation(this.observationConvention, DEFAULT_OBSERVATION_CONVENTION, () -> context,
					this.observationRegistry)
			.start();
		Optional<HeldLock> held;
		try {
			held = take.get();
		}
		catch (RuntimeException ex) {
			context.setOutcome(LockCallContext.Outcome.FAILED);
			observation.error(ex);
			observation.stop();
			throw ex;
		}
		if (held.isEmpty()) {
			context.setOutcome(LockCallContext.Outcome.SKIPPED);
			observation.stop();
			return Optional.empty();
		}
		HeldLock lock = held.get();
		context.setTerm(lock.term());
		Deque<HeldLock> locks = this.current.get();
		if (locks == null) {
			locks = new ConcurrentLinkedDeque<>();
			this.current.set(locks);
		}
		locks.addLast(lock);
		this.history.started(lock);
		return Optional.of(new LockedRun(this, lock, locks, observation));
	}

	/**
	 * Wait before a run tries its lock, as {@link #setRunSpread} says.
	 */
	private void spread(@Nullable Duration atLeastFor) {
		// An invalid atLeastFor is refused by the try, after no pause.
		long bound = (atLeastFor != null) ? Math.min(this.runSpread.toNanos(), atLeastFor.toNanos() / 4) : 0;
		if (bound > 0) {
			this.pauseBelow.accept(bound);
		}
	}

	private static void pauseBelow(long nanos) {
		LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(nanos));
	}

	/**
	 * End a run: it no longer is its thread's current lock, it is released if asked, and
	 * the listener hears of its end.
	 */
	void end(LockedRun run, LockRun.Outcome outcome, boolean release) {
		HeldLock lock = run.lock();
		Deque<HeldLock> locks = run.threadLocks();
		locks.removeLastOccurrence(lock);
		if (locks.isEmpty() && this.current.get() == locks) {
			this.current.remove();
		}
		if (release) {
			lock.release();
		}
		lock.end();
		this.listener.runEnded(this.history.ended(lock, outcome));
		if (run.observation().getContext() instanceof LockCallContext context) {
			context.setOutcome(switch (outcome) {
				case COMPLETED -> LockCallContext.Outcome.COMPLETED;
				case FAILED -> LockCallContext.Outcome.FAILED;
				case ENDED, RUNNING -> LockCallContext.Outcome.ENDED;
			});
		}
		run.observation().stop();
	}

	/**
	 * Read every lock's row. Throws what the database throws.
	 * @return the locks, ordered by name
	 */
	public List<LockState> findLocks() {
		return this.repository.findLocks();
	}

	/**
	 * Release a lock whoever holds it, for an operator who finds it stuck: the lock gets
	 * a new term and is free at once, {@code atLeastFor} notwithstanding. The holder's
	 * fenced transaction in flight, if any, ends first (its commit wins); every later
	 * fenced transaction of that acquisition is refused, so nothing of the old holder's
	 * fenced work commits after the release. Work it does outside a fenced transaction is
	 * not stopped. Throws what the database throws.
	 * @param name the lock's name
	 * @return the new term, or empty if the lock was never taken
	 */
	public OptionalLong forceRelease(String name) {
		OptionalLong term = this.repository.forceRelease(key(name));
		if (term.isPresent()) {
			logger.info("Lock '" + name + "' released by an operator; its term is now " + term.getAsLong());
		}
		return term;
	}

	/**
	 * The runs of a lock on this node ({@link #runLocked}): those running now, then the
	 * last few that ended, newest first.
	 * @param name the lock's name
	 * @return the runs
	 */
	public List<LockRun> recentRuns(String name) {
		return this.history.runs(name);
	}

	/**
	 * The runs on this node ({@link #runLocked}) that are still running although their
	 * lock's {@code atMostFor} has passed on this node's monotonic clock: another node
	 * may have taken the lock, and their fenced work is refused.
	 * @return the runs
	 */
	public List<LockRun> runsPastAtMostFor() {
		return this.history.runningPastAtMostFor();
	}

	/**
	 * The lock of the {@link #runLocked} task (or the {@link #startRun started run}) on
	 * this thread, the innermost if there are several, if any.
	 * @return the lock
	 */
	public Optional<HeldLock> currentLock() {
		Deque<HeldLock> locks = this.current.get();
		return (locks != null) ? Optional.ofNullable(locks.peekLast()) : Optional.empty();
	}

	/**
	 * The row of a lock in the lease table, or of a permit of one, as {@link #findLocks}
	 * names it ({@link #tryPermit}).
	 * @param name the lock's name
	 * @return {@value #KEY_PREFIX} followed by the name
	 * @throws IllegalArgumentException if the name is blank, too long or ends with a
	 * space
	 */
	public static String key(String name) {
		return ElectionNames.lockKey(name);
	}

	static void validate(Duration atMostFor, Duration atLeastFor) {
		Objects.requireNonNull(atMostFor, "atMostFor must not be null");
		Objects.requireNonNull(atLeastFor, "atLeastFor must not be null");
		if (atMostFor.toMillis() <= 0) {
			throw new IllegalArgumentException("atMostFor (" + atMostFor + ") must be at least a millisecond");
		}
		if (atLeastFor.isNegative() || atLeastFor.compareTo(atMostFor) > 0) {
			throw new IllegalArgumentException(
					"atLeastFor (" + atLeastFor + ") must be between zero and atMostFor (" + atMostFor + ")");
		}
	}

	void ended(HeldLock lock, Duration heldFor) {
		this.listener.ended(lock.name(), lock.term(), heldFor);
	}

	FencedTransactionObservation fencedTransactionObservation() {
		return this.fencedTransactionObservation;
	}

	LockRepository repository() {
		return this.repository;
	}

	LockKeeper keeper() {
		return this.keeper;
	}

	/** Stop keeping locks alive: they expire about a lease after their last renewal. */
	@Override
	public void close() {
		this.keeper.close();
	}

	MonotonicClock clock() {
		return this.clock;
	}

	/**
	 * A task that runs under a lock.
	 */
	@FunctionalInterface
	public interface LockedTask {

		/**
		 * Run the task.
		 * @param lock the lock it holds
		 * @throws Exception anything
		 */
		void run(HeldLock lock) throws Exception;

	}

}
