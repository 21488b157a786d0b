package io.github.dbleader.election.aop;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Learn what the guard of a {@link LeaderOnly @LeaderOnly} or
 * {@link ClusterLock @ClusterLock} method decided about one call: that it ran, under
 * which term, or that it was skipped, and why. A skipped call returns what a run may
 * return too ({@code null}, say), so an operation that runs such a method on demand, such
 * as the starter's {@code jobs} endpoint, cannot tell the two apart from the result
 * alone.
 *
 * <p>
 * The call still goes through the bean's proxy, as a scheduled call does: the same check,
 * the same lock, fencing, run history and observations. Only the outermost guarded call
 * that the action makes on the calling thread is reported; calls the method itself makes
 * of other guarded methods are not. Another thread's calls are never reported, so a
 * method whose proxy hands the call to another thread first ({@code @Async}) is not
 * reported at all.
 */
public final class GuardedCall {

	private static final ThreadLocal<@Nullable Listener> PENDING = new ThreadLocal<>();

	private static final ThreadLocal<@Nullable Listener> CURRENT = new ThreadLocal<>();

	/**
	 * How many threads are in {@link #call} now: while none is, a guarded call reads no
	 * thread-local, so the check of a {@code @LeaderOnly} call costs one volatile read
	 * more.
	 */
	private static final AtomicInteger watching = new AtomicInteger();

	private GuardedCall() {
	}

	/**
	 * Run an action that calls a guarded method through its proxy, and tell the listener
	 * what the guard decided about that call. The listener is told on this thread, before
	 * the method runs ({@link Listener#started}) or after it was skipped
	 * ({@link Listener#skipped}); it is told nothing if the action made no guarded call
	 * on this thread.
	 * @param listener told what the guard decided
	 * @param action the call
	 * @return what the action returned
	 * @throws Exception what the action threw
	 */
	public static @Nullable Object call(Listener listener, Callable<?> action) throws Exception {
		Objects.requireNonNull(listener, "listener must not be null");
		watching.incrementAndGet();
		PENDING.set(listener);
		try {
			return action.call();
		}
		finally {
			PENDING.remove();
			CURRENT.remove();
			watching.decrementAndGet();
		}
	}

	/**
	 * Called by the guard when a call comes in: the listener of this thread's watched
	 * call if this is its outermost guarded call, which then no longer waits for another.
	 * @return the listener, or {@code null} if the call is not watched
	 */
	static @Nullable Listener claim() {
		if (watching.get() == 0) {
			return null;
		}
		Listener listener = PENDING.get();
		if (listener != null) {
			PENDING.remove();
			CURRENT.set(listener);
		}
		return listener;
	}

	/**
	 * Called by the guard just before the method runs: tell the claimed listener, if any,
	 * once; nested guarded calls of the method are not told.
	 * @param term the term the method runs under (the election's, or the lock's)
	 */
	static void started(long term) {
		if (watching.get() == 0) {
			return;
		}
		Listener listener = CURRENT.get();
		if (listener != null) {
			CURRENT.remove();
			listener.started(term);
		}
	}

	/** Called by the guard when the claimed call ends, however it ends. */
	static void release() {
		CURRENT.remove();
	}

	/**
	 * Told what the guard decided about a watched call.
	 */
	public interface Listener {

		/**
		 * The method is about to run.
		 * @param term the term it runs under: the election's term for
		 * {@code @LeaderOnly}, the lock's for {@code @ClusterLock}
		 */
		void started(long term);

		/**
		 * The call was skipped: the method did not run.
		 * @param reason why, e.g. that this node does not lead the election, or that the
		 * lock is held elsewhere
		 */
		void skipped(String reason);

	}

}
