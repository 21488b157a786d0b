package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.FencedCallback;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a cluster lock, from {@link ClusterLocks#tryLock}. Safe to use from
 * several threads.
 *
 * <p>
 * The holder believes it holds the lock until {@code atMostFor} less a guard of a fifth
 * of it has passed on its own monotonic clock since just before it sent the statement
 * that took the lock, or, after an {@link #extend extension}, the last statement that
 * extended it (docs/explanation/invariants.md, I2); a slow, hung or failed statement
 * never lengthens the belief. Every statement that sets the lock's expiry (an extension,
 * a renewal of the {@link #keepAlive keep-alive}) bounds the belief by what it sets from
 * the moment it is sent, since it may shorten the lock; its answer lengthens the belief
 * only if no other such statement of this acquisition was under way meanwhile, as the
 * database may have applied the other one last.
 */
public final class HeldLock {

	private static final Logger logger = LoggerFactory.getLogger(HeldLock.class);

	private final ClusterLocks locks;

	private final String name;

	private final String key;

	private final long term;

	/** Monotonic time just before the statement that took the lock was sent. */
	private final long sentAt;

	/**
	 * What this node may believe, from the last statement that took or extended the lock;
	 * written under {@link #expiryChanges}.
	 */
	private volatile Belief belief;

	/**
	 * Guards the belief and the statements that set the lock's expiry, apart from this
	 * object's monitor, which sends the run's extensions one at a time: the keep-alive's
	 * renewal never waits for an extension under way.
	 */
	private final Object expiryChanges = new Object();

	/**
	 * How many statements that set the lock's expiry were sent: the number of the last.
	 */
	private long changesSent;

	/**
	 * How many statements that set the lock's expiry are under way (sent, not answered).
	 */
	private int changesUnderWay;

	/** The number of the first statement sent while none was under way. */
	private long firstChangeUnderWay;

	private final Duration atLeastFor;

	/** How long after the last extension a released lock stays taken; none before one. */
	private volatile Duration atLeastForAfterExtension = Duration.ZERO;

	private final AtomicBoolean released = new AtomicBoolean();

	/**
	 * Whether an extension found that the database no longer gives the lock to this
	 * acquisition.
	 */
	private volatile boolean lost;

	/** Whether this node stopped using the acquisition (released, or its run ended). */
	private final AtomicBoolean ended = new AtomicBoolean();

	/** Told once when the lock is lost while it is still in use. */
	private final List<Runnable> lostCallbacks = new CopyOnWriteArrayList<>();

	private final AtomicBoolean lostNotified = new AtomicBoolean();

	/** Whether the keep-alive renews this lock. */
	private volatile boolean keptAlive;

	HeldLock(ClusterLocks locks, String name, String key, long term, long sentAt, Duration atMostFor,
			Duration atLeastFor) {
		this.locks = locks;
		this.name = name;
		this.key = key;
		this.term = term;
		this.sentAt = sentAt;
		this.belief = Belief.from(sentAt, atMostFor);
		this.atLeastFor = atLeastFor;
	}

	/**
	 * @return the lock's name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * The term of this acquisition: strictly greater than that of every earlier
	 * acquisition of the lock, by any node. A fencing token to write along with the work
	 * if other systems should reject stale holders too.
	 * @return the term
	 */
	public long term() {
		return this.term;
	}

	/**
	 * Whether this node may still believe that it holds the lock: it has not released it,
	 * no extension found it lost, and {@code atMostFor} less a guard has not passed on
	 * the local monotonic clock since just before the statement that took the lock, or
	 * that extended it last, was sent. Reads no database.
	 * @return whether the lock is held
	 */
	public boolean isHeld() {
		return !this.released.get() && !this.lost && this.locks.clock().nanoTime() - this.belief.deadline() < 0;
	}

	/**
	 * Whether {@code atMostFor} has passed since just before the statement that took the
	 * lock, or that extended it last, was sent, on the local monotonic clock: the
	 * database may have let another node take the lock, and fenced work of this
	 * acquisition is refused. Reads no database.
	 * @return whether the acquisition is past its {@code atMostFor}
	 */
	public boolean isPastAtMostFor() {
		Belief belief = this.belief;
		return this.locks.clock().nanoTime() - belief.sentAt() >= belief.atMostFor().toNanos();
	}

	/**
	 * The longest the lock is held by this acquisition, also after a crash, from the
	 * statement that took it or, after an extension, from the last one that extended it.
	 * @return the {@code atMostFor} of the acquisition or of its last extension
	 */
	public Duration atMostFor() {
		return this.belief.atMostFor();
	}

	/**
	 * Extend the lock: {@link #extend(Duration, Duration) extend(atMostFor,
	 * Duration.ZERO)}. The {@code atLeastFor} of the acquisition still counts from the
	 * acquisition.
	 * @param atMostFor how long from now the lock is held at most
	 * @return whether the lock was extended
	 */
	public boolean extend(Duration atMostFor) {
		return extend(atMostFor, Duration.ZERO);
	}

	/**
	 * Extend the lock, for a run that takes longer than it expected (or for a keep-alive
	 * that extends it while it runs): one conditional statement makes the lock expire
	 * {@code atMostFor} from now on the database clock (earlier than before, if that is
	 * shorter), if this acquisition still holds it there. The belief is renewed from just
	 * before that statement was sent, as at the acquisition; the term stays the same.
	 * While the statement is under way, the belief already ends no later than it would
	 * after it; if a renewal of the {@link #keepAlive keep-alive} was under way at the
	 * same time, the belief ends by the earlier of the two until the next renewal
	 * succeeds on its own, since the database may have applied either last.
	 * <p>
	 * A release then keeps the lock taken until the later of the acquisition's
	 * {@code atLeastFor} after the acquisition and this {@code atLeastFor} after this
	 * extension (database clock). Extensions of one lock are sent one at a time, and none
	 * after a release. The statement does not wait for a fenced transaction of this lock
	 * in flight, which locks the lock's fence row, not the row this statement writes.
	 * @param atMostFor how long from now the lock is held at most, also after a crash
	 * @param atLeastFor how long after this extension a released lock stays taken; at
	 * most {@code atMostFor}
	 * @return whether the lock was extended; {@code false} if it is no longer held: this
	 * node released it or its belief ended (then no statement is sent), or the database
	 * found that another node took it, or that it expired or an operator released it
	 * (then {@link #isHeld()} is {@code false} from now on)
	 * @throws IllegalArgumentException if the durations are invalid
	 * @throws RuntimeException what the database threw: the outcome is unknown, so the
	 * belief is not renewed and ends by the earlier of its previous end and this
	 * extension's (which may have shortened the lock), unless a later extension succeeds
	 */
	public synchronized boolean extend(Duration atMostFor, Duration atLeastFor) {
		ClusterLocks.validate(atMostFor, atLeastFor);
		if (!setExpiry(atMostFor)) {
			return false;
		}
		this.atLeastForAfterExtension = atLeastFor;
		return true;
	}

	/**
	 * Extend the lock by the keep-alive on its own, after a batch that did not extend
	 * every lock: as {@link #extend(Duration)}, without changing the {@code atLeastFor}
	 * of the run's last extension.
	 * @param keptFor how long from now the lock is held at most
	 * @return whether the lock was extended
	 */
	synchronized boolean renewAlone(Duration keptFor) {
		return setExpiry(keptFor);
	}

	/**
	 * Send one conditional statement that sets the lock's expiry; the caller holds this
	 * object's monitor, so that this node's own statements are sent one at a time.
	 */
	private boolean setExpiry(Duration atMostFor) {
		if (!isHeld()) {
			return false;
		}
		// Before the statement is sent: a slow answer never extends the belief.
		ExpiryChange change = sending(this.locks.clock().nanoTime(), atMostFor);
		boolean extended = false;
		try {
			extended = this.locks.repository().extendLock(this.key, this.locks.getNodeId(), this.term, atMostFor);
		}
		finally {
			answered(change, extended);
		}
		if (!extended) {
			this.lost = true;
			logger.info("Lock '" + this.name + "' (term " + this.term + ") could not be extended: this node no"
					+ " longer holds it at the database");
		}
		return extended;
	}

	/**
	 * A statement that sets the lock's expiry is about to be sent: from now on the belief
	 * ends no later than the statement would make it, whatever its answer, since the
	 * database may apply it (and it may shorten the lock).
	 * @param sentAt monotonic time just before the statement is sent
	 * @param atMostFor how long from then the statement makes the database hold the lock
	 * @return the change, for {@link #answered}
	 */
	ExpiryChange sending(long sentAt, Duration atMostFor) {
		Belief set = Belief.from(sentAt, atMostFor);
		synchronized (this.expiryChanges) {
			long number = ++this.changesSent;
			if (this.changesUnderWay++ == 0) {
				this.firstChangeUnderWay = number;
			}
			if (set.deadline() - this.belief.deadline() < 0) {
				this.belief = set;
			}
			return new ExpiryChange(number, set);
		}
	}

	/**
	 * The answer to a statement from {@link #sending} came back, or it failed. The belief
	 * follows a statement that the database applied only if no other statement that sets
	 * the lock's expiry was under way at any time while it was: of two under way
	 * together, either may be applied last, so neither answer tells the expiry. The
	 * belief then stays bounded by both until a later statement on its own succeeds.
	 * @param change the statement
	 * @param applied whether the database answered that it applied it
	 */
	void answered(ExpiryChange change, boolean applied) {
		synchronized (this.expiryChanges) {
			boolean alone = change.number() == this.firstChangeUnderWay && change.number() == this.changesSent;
			this.changesUnderWay--;
			if (applied && alone && !this.released.get() && !this.lost) {
				this.belief = change.belief();
			}
		}
	}

	/**
	 * Keep the lock alive while this node is alive, until its run ends or {@code maxFor}
	 * after the acquisition: every renew interval, the node extends all of its kept-alive
	 * locks by a lease in one statement ({@link KeepAliveSettings}), so a run may last
	 * longer than {@code atMostFor}, and a crash of this node frees the lock about a
	 * lease after its last renewal. {@link #isHeld()} follows each renewal as leadership
	 * does: it turns {@code false} once renewals stop reaching the database for longer
	 * than the lease less its guard, when another node or an operator took the lock, or
	 * when {@code maxFor} has passed; then {@link #onLost} callbacks run, and fenced work
	 * is refused. The lock is no longer renewed once its run ends ({@link LockedRun#end})
	 * or it is released.
	 * @param maxFor the longest this acquisition may hold the lock, from the acquisition;
	 * a renewal never reaches past it
	 * @throws IllegalArgumentException if {@code maxFor} is not positive
	 */
	public void keepAlive(Duration maxFor) {
		if (maxFor.isNegative() || maxFor.isZero()) {
			throw new IllegalArgumentException("maxFor (" + maxFor + ") must be positive");
		}
		this.keptAlive = true;
		this.locks.keeper().keep(this, this.sentAt + maxFor.toNanos());
	}

	/**
	 * Run a callback once if the lock is lost while this node still uses it: a kept-alive
	 * lock whose renewals stopped reaching the database, that another node took after it
	 * expired, that an operator released, or whose {@code maxFor} passed. Runs on the
	 * keep-alive's thread, so it should be short (for example interrupt the run's thread,
	 * or set a flag the run checks). Runs at once if the lock was lost already.
	 * @param callback the callback
	 */
	public void onLost(Runnable callback) {
		this.lostCallbacks.add(callback);
		if (this.lostNotified.get()) {
			callback.run();
		}
	}

	/**
	 * Tell the callbacks, once, that the lock is lost, unless this node no longer uses
	 * it.
	 * @param why why it is lost
	 */
	void notifyLost(String why) {
		if (this.released.get() || this.ended.get() || !this.lostNotified.compareAndSet(false, true)) {
			return;
		}
		logger.info("Lock '" + this.name + "' (term " + this.term + ") lost while its run goes on: " + why
				+ "; its fenced work is refused");
		for (Runnable callback : this.lostCallbacks) {
			try {
				callback.run();
			}
			catch (RuntimeException ex) {
				logger.warn("A callback for the loss of lock '" + this.name + "' failed", ex);
			}
		}
	}

	boolean isEnded() {
		return this.ended.get();
	}

	String key() {
		return this.key;
	}

	/**
	 * Run work that must not be done twice: in a transaction that commits only while this
	 * acquisition holds the lock at the database and the lock has not expired there;
	 * another node that takes the lock meanwhile waits for the transaction to end. The
	 * callback runs in the application's transaction, so its {@code JdbcTemplate} joins
	 * it. Each call is one observation ({@code leader.election.fenced.transaction}) where
	 * the locks have an {@linkplain ClusterLocks#setObservationRegistry observation
	 * registry}.
	 * @param <T> the result type
	 * @param callback the work; it receives the term
	 * @return the callback's result
	 * @throws LockNotHeldException if the lock is no longer held (then no statement is
	 * sent if this node knows so already); nothing of the callback is committed
	 */
	public <T extends @Nullable Object> T runFenced(FencedCallback<T> callback) {
		return this.locks.fencedTransactionObservation()
			.observe(this.key, this.term, LockNotHeldException.class, () -> {
				if (!isHeld()) {
					throw new LockNotHeldException(this.key, this.term, this.released.get() ? "it was released"
							: this.lost ? "an extension found it taken or expired" : "its atMostFor has passed");
				}
				return this.locks.repository()
					.runLockFenced(this.key, this.locks.getNodeId(), this.term, remainingBelief(), callback);
			});
	}

	/**
	 * Release the lock: it stays taken until {@code atLeastFor} after its acquisition
	 * (database clock), or after an extension until that extension's {@code atLeastFor}
	 * after it if that is later, and is free from then on. Releasing twice does nothing;
	 * a release that fails is logged, and the lock then expires after {@code atMostFor}.
	 * @return whether this call released the lock (it was still held at the database)
	 */
	public synchronized boolean release() {
		if (!this.released.compareAndSet(false, true)) {
			return false;
		}
		end();
		try {
			return this.locks.repository()
				.releaseLock(this.key, this.locks.getNodeId(), this.term, this.atLeastFor,
						this.atLeastForAfterExtension);
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
	 * How long the database may keep a stalled fenced transaction: the rest of the
	 * belief, at least a second, so that a frozen holder blocks a take-over for about its
	 * {@code atMostFor} at most; for a kept-alive lock at least the keep-alive's lease,
	 * as for an election's fenced work, since its belief is renewed while the run runs.
	 */
	private Duration remainingBelief() {
		long nanos = this.belief.deadline() - this.locks.clock().nanoTime();
		long floor = this.keptAlive ? this.locks.keeper().settings().leaseDuration().toNanos()
				: Duration.ofSeconds(1).toNanos();
		return Duration.ofNanos(Math.max(nanos, floor));
	}

	@Override
	public String toString() {
		return "HeldLock[name=" + this.name + ", term=" + this.term + "]";
	}

	/**
	 * A statement that sets the lock's expiry, sent and not yet answered.
	 *
	 * @param number its place among the statements sent for this acquisition
	 * @param belief what the holder may believe if it is applied
	 */
	record ExpiryChange(long number, Belief belief) {

	}

	/**
	 * What the holder may believe after a statement that took or extended the lock.
	 *
	 * @param sentAt monotonic time just before the statement was sent
	 * @param atMostFor how long from then the database holds the lock at most
	 * @param deadline monotonic time up to which this node may believe it holds the lock
	 * (I2)
	 */
	record Belief(long sentAt, Duration atMostFor, long deadline) {

		static Belief from(long sentAt, Duration atMostFor) {
			return new Belief(sentAt, atMostFor,
					sentAt + atMostFor.minus(ElectionSettings.defaultGuard(atMostFor)).toNanos());
		}

	}

}
