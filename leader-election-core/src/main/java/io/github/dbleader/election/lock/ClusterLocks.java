package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.MonotonicClock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Cluster locks (ShedLock's model, with fencing): each run of a task takes the lock when
 * it starts, on whichever node is free, and either releases it when the run completes or
 * lets it expire. There is no standing leader, no background thread and no statement
 * between runs.
 *
 * <ul>
 * <li>A try that finds the lock taken costs one conditional {@code UPDATE}; a successful
 * one that statement and a read of the new term; a release one {@code UPDATE}.</li>
 * <li>{@code atMostFor} bounds how long a crashed holder keeps the lock (database clock).
 * The holder itself believes it holds the lock only until {@code atMostFor} minus a guard
 * of a fifth of it, from the moment before it sent the statement that took the lock, on
 * its own monotonic clock (DESIGN I2).</li>
 * <li>{@code atLeastFor} keeps a released lock taken until that long after its
 * acquisition (database clock), so that a fast run is not repeated by a node whose
 * scheduler fires a little later.</li>
 * <li>Every acquisition gets a strictly greater term, a fencing token; work that must not
 * be done twice runs in {@link HeldLock#runFenced}, which commits only while the
 * acquisition holds the lock.</li>
 * </ul>
 *
 * <p>A lock named {@code n} is the lease table's row {@value #KEY_PREFIX}{@code n}; elections
 * must not use names with that prefix.
 */
public class ClusterLocks {

	/** Prefix of the lease table's rows that are locks, not elections. */
	public static final String KEY_PREFIX = ElectionService.LOCK_NAME_PREFIX;

	/** Longest lock name: the lease table's key holds 128 characters, prefix included. */
	public static final int MAX_NAME_LENGTH = 128 - KEY_PREFIX.length();

	private static final Log logger = LogFactory.getLog(ClusterLocks.class);

	private final LockRepository repository;

	private final String nodeId;

	private final MonotonicClock clock;

	/**
	 * Locks this instance is taking: another try of the same lock here meanwhile is skipped
	 * without a statement, so that the read of a new term after the take-over cannot see a
	 * later acquisition by this node.
	 */
	private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

	private final ThreadLocal<@Nullable HeldLock> current = new ThreadLocal<>();

	/**
	 * Create cluster locks.
	 * @param repository the lock statements
	 * @param nodeId this node, unique among the nodes that share the locks
	 * @param clock the monotonic clock
	 */
	public ClusterLocks(LockRepository repository, String nodeId, MonotonicClock clock) {
		this.repository = Objects.requireNonNull(repository, "repository must not be null");
		this.nodeId = Objects.requireNonNull(nodeId, "nodeId must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
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

	/** @return this node's id, the holder recorded in the lock rows it takes */
	public String getNodeId() {
		return this.nodeId;
	}

	/**
	 * Try to take a lock. Never throws for a database failure: the outcome of a statement
	 * that failed is unknown, so it counts as not taken (and the lock, if the database did
	 * take it, expires after {@code atMostFor}).
	 * @param name the lock's name
	 * @param atMostFor how long the lock is held at most, also after a crash of this node
	 * @param atLeastFor how long after its acquisition a released lock stays taken; at
	 * most {@code atMostFor}
	 * @return the held lock, or empty if another node (or another run here) holds it
	 * @throws IllegalArgumentException if the name or the durations are invalid
	 */
	public Optional<HeldLock> tryLock(String name, Duration atMostFor, Duration atLeastFor) {
		String key = key(name);
		validate(atMostFor, atLeastFor);
		if (!this.inFlight.add(key)) {
			return Optional.empty();
		}
		try {
			// Before the statement is sent: a slow answer never extends the belief.
			long sentAt = this.clock.nanoTime();
			OptionalLong term = this.repository.tryLock(key, this.nodeId, atMostFor);
			if (term.isEmpty()) {
				return Optional.empty();
			}
			long belief = atMostFor.minus(ElectionSettings.defaultGuard(atMostFor)).toNanos();
			return Optional.of(new HeldLock(this, name, key, term.getAsLong(), sentAt + belief, atLeastFor));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not try lock '" + name + "'; the run is skipped: " + ex);
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
		Optional<HeldLock> held = tryLock(name, atMostFor, atLeastFor);
		if (held.isEmpty()) {
			return false;
		}
		HeldLock lock = held.get();
		HeldLock outer = this.current.get();
		this.current.set(lock);
		try {
			task.run(lock);
		}
		finally {
			restore(outer);
			if (releaseAfterRun) {
				lock.release();
			}
		}
		return true;
	}

	/**
	 * The lock of the {@link #runLocked} task running on this thread, if any.
	 * @return the lock
	 */
	public Optional<HeldLock> currentLock() {
		return Optional.ofNullable(this.current.get());
	}

	private void restore(@Nullable HeldLock outer) {
		if (outer != null) {
			this.current.set(outer);
		}
		else {
			this.current.remove();
		}
	}

	/**
	 * The row of a lock in the lease table.
	 * @param name the lock's name
	 * @return {@value #KEY_PREFIX} followed by the name
	 * @throws IllegalArgumentException if the name is blank or too long
	 */
	public static String key(String name) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("lock name must not be blank");
		}
		if (name.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException("lock name '" + name + "' is " + name.length()
					+ " characters long; at most " + MAX_NAME_LENGTH + " are allowed");
		}
		return KEY_PREFIX + name;
	}

	private static void validate(Duration atMostFor, Duration atLeastFor) {
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

	LockRepository repository() {
		return this.repository;
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
