package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.dbleader.election.FencedCallback;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a cluster lock, from {@link ClusterLocks#tryLock}. Safe to use from
 * several threads.
 */
public final class HeldLock {

	private static final Log logger = LogFactory.getLog(HeldLock.class);

	private final ClusterLocks locks;

	private final String name;

	private final String key;

	private final long term;

	/** Monotonic time just before the statement that took the lock was sent. */
	private final long sentAt;

	private final Duration atMostFor;

	/** Monotonic time up to which this node may believe it holds the lock (I2). */
	private final long beliefDeadline;

	private final Duration atLeastFor;

	private final AtomicBoolean released = new AtomicBoolean();

	/** Whether this node stopped using the acquisition (released, or its run ended). */
	private final AtomicBoolean ended = new AtomicBoolean();

	HeldLock(ClusterLocks locks, String name, String key, long term, long sentAt, Duration atMostFor,
			long beliefDeadline, Duration atLeastFor) {
		this.locks = locks;
		this.name = name;
		this.key = key;
		this.term = term;
		this.sentAt = sentAt;
		this.atMostFor = atMostFor;
		this.beliefDeadline = beliefDeadline;
		this.atLeastFor = atLeastFor;
	}

	/** @return the lock's name */
	public String name() {
		return this.name;
	}

	/**
	 * The term of this acquisition: strictly greater than that of every earlier acquisition
	 * of the lock, by any node. A fencing token to write along with the work if other
	 * systems should reject stale holders too.
	 * @return the term
	 */
	public long term() {
		return this.term;
	}

	/**
	 * Whether this node may still believe that it holds the lock: it has not released it,
	 * and {@code atMostFor} less a guard has not passed on the local monotonic clock since
	 * just before the statement that took the lock was sent. Reads no database.
	 * @return whether the lock is held
	 */
	public boolean isHeld() {
		return !this.released.get() && this.locks.clock().nanoTime() - this.beliefDeadline < 0;
	}

	/**
	 * Whether {@code atMostFor} has passed since just before the statement that took the
	 * lock was sent, on the local monotonic clock: the database may have let another node
	 * take the lock, and fenced work of this acquisition is refused. Reads no database.
	 * @return whether the acquisition is past its {@code atMostFor}
	 */
	public boolean isPastAtMostFor() {
		return this.locks.clock().nanoTime() - this.sentAt >= this.atMostFor.toNanos();
	}

	/** @return the longest the lock is held by this acquisition, also after a crash */
	public Duration atMostFor() {
		return this.atMostFor;
	}

	/**
	 * Run work that must not be done twice: in a transaction that commits only while this
	 * acquisition holds the lock at the database and the lock has not expired there; another
	 * node that takes the lock meanwhile waits for the transaction to end. The callback
	 * runs in the application's transaction, so its {@code JdbcTemplate} joins it.
	 * @param <T> the result type
	 * @param callback the work; it receives the term
	 * @return the callback's result
	 * @throws LockNotHeldException if the lock is no longer held (then no statement is
	 * sent if this node knows so already); nothing of the callback is committed
	 */
	public <T extends @Nullable Object> T runFenced(FencedCallback<T> callback) {
		if (!isHeld()) {
			throw new LockNotHeldException(this.key, this.term,
					this.released.get() ? "it was released" : "its atMostFor has passed");
		}
		return this.locks.repository()
			.runLockFenced(this.key, this.locks.getNodeId(), this.term, remainingBelief(), callback);
	}

	/**
	 * Release the lock: it stays taken until {@code atLeastFor} after its acquisition
	 * (database clock), and is free from then on. Releasing twice does nothing; a release
	 * that fails is logged, and the lock then expires after {@code atMostFor}.
	 * @return whether this call released the lock (it was still held at the database)
	 */
	public boolean release() {
		if (!this.released.compareAndSet(false, true)) {
			return false;
		}
		end();
		try {
			return this.locks.repository().releaseLock(this.key, this.locks.getNodeId(), this.term, this.atLeastFor);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release lock '" + this.name + "' (term " + this.term
					+ "); it expires after its atMostFor: " + ex);
			return false;
		}
	}

	/**
	 * Tell the listener, once, that this node no longer uses the acquisition.
	 */
	void end() {
		if (this.ended.compareAndSet(false, true)) {
			this.locks.ended(this, Duration.ofNanos(this.locks.clock().nanoTime() - this.sentAt));
		}
	}

	/**
	 * How long the database may keep a stalled fenced transaction: the rest of the belief,
	 * at least a second, so that a frozen holder blocks a take-over for about its
	 * {@code atMostFor} at most.
	 */
	private Duration remainingBelief() {
		long nanos = this.beliefDeadline - this.locks.clock().nanoTime();
		return Duration.ofNanos(Math.max(nanos, Duration.ofSeconds(1).toNanos()));
	}

	@Override
	public String toString() {
		return "HeldLock[name=" + this.name + ", term=" + this.term + "]";
	}

}
