package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import io.github.dbleader.election.FencedCallback;
import org.jspecify.annotations.Nullable;

/**
 * The statements of cluster locks, one method each. Like the election's statements, every
 * time comparison is made by the database against its own clock, and an exception means
 * that the outcome is unknown. Keys are the rows' names in the lease table, prefix
 * included ({@link ClusterLocks#KEY_PREFIX}).
 */
public interface LockRepository {

	/**
	 * Take the lock if its row is vacant or expired by the database clock (or create the
	 * row, held by this node, if it does not exist), with a new term strictly greater
	 * than any earlier one, until {@code atMostFor} from now on the database clock. Once
	 * the repository has seen the row exist, a try that finds the lock held costs one
	 * conditional statement.
	 * @param key the lock's row
	 * @param nodeId this node
	 * @param atMostFor how long the lock is held unless released earlier
	 * @return the term of this acquisition, or empty if another node holds the lock
	 */
	OptionalLong tryLock(String key, String nodeId, Duration atMostFor);

	/**
	 * Which of the given locks a {@link #tryLock try} could take now: those that have
	 * expired by the database clock (or were released), and those that have no row yet.
	 * The permits of a lock ({@link ClusterLocks#tryPermit}) use it to choose a permit to
	 * try: one statement whatever the number of keys, which locks no row and waits for no
	 * fenced run. A hint only: another node may take a listed lock before this node's try
	 * does. This default reads every lock ({@link #findLocks}).
	 * @param keys the locks' rows
	 * @return the free ones, in the order given
	 */
	default List<String> freeLocks(List<String> keys) {
		Set<String> held = new HashSet<>();
		for (LockState lock : findLocks()) {
			if (lock.held()) {
				held.add(ClusterLocks.KEY_PREFIX + lock.name());
			}
		}
		return keys.stream().filter((key) -> !held.contains(key)).toList();
	}

	/**
	 * Extend the lock of this acquisition: one conditional statement on the lock's row,
	 * by key, that changes it only if this acquisition (holder and term) still holds it
	 * and it has not expired by the database clock, and this acquisition has not released
	 * it; the lock then expires {@code atMostFor} from now on the database clock (earlier
	 * than before, if that is shorter), and the time of the extension is recorded
	 * (database clock) for {@link #releaseLock}. A keep-alive calls it too.
	 * @param key the lock's row
	 * @param nodeId this node
	 * @param term the term of the acquisition
	 * @param atMostFor how long from now the lock is held unless released or extended
	 * @return whether the lock was extended; {@code false} if this acquisition no longer
	 * holds it
	 */
	boolean extendLock(String key, String nodeId, long term, Duration atMostFor);

	/**
	 * Extend several locks of this node at once, as {@link #extendLock} extends one: the
	 * keep-alive of the locks of running runs, one statement for all of them where the
	 * database allows. This default extends them one by one.
	 * @param nodeId this node
	 * @param heldTerms the locks' rows and the terms of their acquisitions
	 * @param atMostFor how long from now the locks are held unless released or extended
	 * @return how many of the locks were extended
	 */
	default int extendLocks(String nodeId, Map<String, Long> heldTerms, Duration atMostFor) {
		int extended = 0;
		for (Map.Entry<String, Long> held : heldTerms.entrySet()) {
			if (extendLock(held.getKey(), nodeId, held.getValue(), atMostFor)) {
				extended++;
			}
		}
		return extended;
	}

	/**
	 * Release the lock of this acquisition: it expires at the later of {@code atLeastFor}
	 * after its acquisition and {@code atLeastForAfterExtension} after its last extension
	 * (database clock; the acquisition counts as the last extension if there was none),
	 * or at once if both have passed; never later than it would have.
	 * @param key the lock's row
	 * @param nodeId this node
	 * @param term the term of the acquisition
	 * @param atLeastFor how long after its acquisition the lock stays taken
	 * @param atLeastForAfterExtension how long after its last extension the lock stays
	 * taken
	 * @return whether this acquisition still held the lock
	 */
	boolean releaseLock(String key, String nodeId, long term, Duration atLeastFor, Duration atLeastForAfterExtension);

	/**
	 * Run a callback in a transaction that first locks the lock's row in share mode
	 * (exclusively where the database has no share mode) and checks that this acquisition
	 * holds it and that it has not expired. Every change of holder updates that row, so
	 * it waits until the transaction has ended.
	 * @param <T> the callback's result type
	 * @param key the lock's row
	 * @param nodeId this node
	 * @param term the term of the acquisition
	 * @param maxHoldTime how long the database may keep a stalled transaction open before
	 * it drops the session
	 * @param callback the work
	 * @return the callback's result
	 * @throws LockNotHeldException if the check fails; nothing is committed
	 */
	<T extends @Nullable Object> T runLockFenced(String key, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback);

	/**
	 * Read every lock's row, by key.
	 * @return the locks, ordered by name
	 */
	List<LockState> findLocks();

	/**
	 * Release a lock whoever holds it, for an operator: the row gets a new term, strictly
	 * greater than any earlier one, no holder, and expires now. A fenced transaction of
	 * the holder in flight is waited for (it locks the row), and any later one is
	 * refused, so the old holder's fenced work cannot commit after this; its own release
	 * then finds nothing to release.
	 * @param key the lock's row
	 * @return the new term, or empty if the lock has no row
	 */
	OptionalLong forceRelease(String key);

}
