package io.github.dbleader.shedlock;

import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;

import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockNotHeldException;
import org.jspecify.annotations.Nullable;

/**
 * The cluster lock of the {@code @SchedulerLock} run on the current thread, taken by
 * {@link ClusterLockProvider}: static, thread-bound access in the manner of Spring's
 * {@code TransactionSynchronizationManager}, so that the method's code reaches its lock's
 * term and fenced transactions without a parameter:
 *
 * <pre class="code">
 * &#64;Scheduled(cron = "0 * * * * *")
 * &#64;SchedulerLock(name = "report", lockAtMostFor = "10m")
 * void report() {
 *     SchedulerLockContext.runFenced((term) -&gt; jdbc.update(
 *             "INSERT INTO report_runs (term, day) VALUES (?, CURRENT_DATE)", term));
 * }
 * </pre>
 *
 * <p>
 * A lock is bound to the thread that called {@code LockProvider.lock} (ShedLock runs the
 * task on that thread) from then until its run ends ({@code unlock}, or an extension that
 * finds the lock lost); nested runs bind the innermost last. Work handed to other threads
 * must take the {@link HeldLock} along ({@link #currentLock()}).
 */
public final class SchedulerLockContext {

	private static final ThreadLocal<@Nullable Deque<HeldLock>> locks = new ThreadLocal<>();

	private SchedulerLockContext() {
	}

	/**
	 * The lock of the innermost run on this thread.
	 * @return the lock, or empty outside a run of {@link ClusterLockProvider}
	 */
	public static Optional<HeldLock> currentLock() {
		Deque<HeldLock> bound = locks.get();
		return (bound != null) ? Optional.ofNullable(bound.peekLast()) : Optional.empty();
	}

	/**
	 * The term of the current run's lock: its fencing token, strictly greater than that
	 * of every earlier run of the lock on any node.
	 * @return the term
	 * @throws IllegalStateException outside a run of {@link ClusterLockProvider}
	 */
	public static long currentTerm() {
		return requireLock().term();
	}

	/**
	 * Run work that must not be done twice in a fenced transaction of the current run's
	 * lock ({@link HeldLock#runFenced}): it commits only while this run holds the lock at
	 * the database.
	 * @param <T> the result type
	 * @param callback the work; it receives the term
	 * @return the callback's result
	 * @throws IllegalStateException outside a run of {@link ClusterLockProvider}
	 * @throws LockNotHeldException if the run no longer holds the lock; nothing of the
	 * callback is committed
	 */
	public static <T extends @Nullable Object> T runFenced(FencedCallback<T> callback) {
		return requireLock().runFenced(callback);
	}

	private static HeldLock requireLock() {
		return currentLock().orElseThrow(() -> new IllegalStateException(
				"No @SchedulerLock run of ClusterLockProvider on this thread (is the LockProvider a"
						+ " ClusterLockProvider, and does this code run on the thread of the locked method?)"));
	}

	/**
	 * Bind a run's lock to this thread.
	 * @param lock the lock
	 * @return what unbinds it, from any thread, once
	 */
	static Runnable bind(HeldLock lock) {
		Deque<HeldLock> bound = locks.get();
		if (bound == null) {
			bound = new ConcurrentLinkedDeque<>();
			locks.set(bound);
		}
		bound.addLast(lock);
		Deque<HeldLock> thread = bound;
		return () -> {
			thread.removeLastOccurrence(lock);
			if (thread.isEmpty() && locks.get() == thread) {
				locks.remove();
			}
		};
	}

}
