package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the locks of running runs alive while this node is alive
 * ({@link HeldLock#keepAlive}): every renew interval, one statement extends all of them by
 * a lease ({@link LockRepository#extendLocks}), so that the number of statements does not
 * grow with the number of locks. A lock is kept until its run ends, until {@code maxFor}
 * after its acquisition would be passed by the next extension, or until it is lost; a
 * lost lock's holder is told once ({@link HeldLock#onLost}). A round that cannot reach
 * the database extends nothing: the holders' beliefs run out on their own, and the next
 * round tells them. Runs on a thread of its own, started with the first kept lock, so that
 * the elections' heartbeat never waits for it; its statements write only the locks' lease
 * rows, which fenced runs do not lock.
 */
final class LockKeeper implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockKeeper.class);

	private final ClusterLocks locks;

	private final KeepAliveSettings settings;

	/** The kept locks and the monotonic time after which they are no longer extended. */
	private final Map<HeldLock, Long> kept = new ConcurrentHashMap<>();

	private @Nullable ScheduledExecutorService scheduler;

	private boolean failing;

	LockKeeper(ClusterLocks locks, KeepAliveSettings settings) {
		this.locks = locks;
		this.settings = settings;
	}

	KeepAliveSettings settings() {
		return this.settings;
	}

	/**
	 * Keep a lock alive from the next round on.
	 * @param lock the lock
	 * @param until monotonic time beyond which no extension may reach
	 */
	void keep(HeldLock lock, long until) {
		this.kept.put(lock, until);
		start();
	}

	private synchronized void start() {
		if (this.scheduler == null) {
			ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "cluster-lock-keeper");
				thread.setDaemon(true);
				return thread;
			});
			long interval = this.settings.renewInterval().toNanos();
			scheduler.scheduleWithFixedDelay(this::roundQuietly, interval, interval, TimeUnit.NANOSECONDS);
			this.scheduler = scheduler;
		}
	}

	private void roundQuietly() {
		try {
			round();
		}
		catch (RuntimeException ex) {
			logger.error("Cluster lock keep-alive round failed", ex);
		}
	}

	/** One round: tell the holders of lost locks, then extend the others in one statement. */
	void round() {
		Duration leaseDuration = this.settings.leaseDuration();
		long now = this.locks.clock().nanoTime();
		Map<String, Long> terms = new LinkedHashMap<>();
		List<HeldLock> extending = new ArrayList<>();
		this.kept.forEach((lock, until) -> {
			if (lock.isEnded()) {
				this.kept.remove(lock);
			}
			else if (!lock.isHeld()) {
				this.kept.remove(lock);
				lock.notifyLost((now + leaseDuration.toNanos() - until > 0) ? "its maxFor has passed"
						: "it was not renewed in time (the database did not answer)");
			}
			else if (now + leaseDuration.toNanos() - until <= 0) {
				terms.put(lock.key(), lock.term());
				extending.add(lock);
			}
		});
		if (terms.isEmpty()) {
			return;
		}
		// Before the statement is sent: a slow answer never extends a belief (I2), and each
		// belief ends by what the statement sets while it is under way.
		long sentAt = this.locks.clock().nanoTime();
		Map<HeldLock, HeldLock.ExpiryChange> changes = new LinkedHashMap<>();
		extending.forEach((lock) -> changes.put(lock, lock.sending(sentAt, leaseDuration)));
		int extended;
		try {
			extended = this.locks.repository().extendLocks(this.locks.getNodeId(), terms, leaseDuration);
		}
		catch (RuntimeException ex) {
			changes.forEach((lock, change) -> lock.answered(change, false));
			if (!this.failing) {
				this.failing = true;
				logger.warn("Could not keep " + terms.size() + " cluster lock(s) alive; their runs lose them unless a"
						+ " later renewal reaches the database in time: " + ex);
			}
			return;
		}
		if (this.failing) {
			this.failing = false;
			logger.info("Cluster locks kept alive again");
		}
		boolean all = extended == terms.size();
		changes.forEach((lock, change) -> lock.answered(change, all));
		if (all) {
			return;
		}
		// Some were not extended, and which is unknown: find out one by one (rare: a lock lost
		// or released).
		for (HeldLock lock : extending) {
			if (!lock.renewAlone(leaseDuration)) {
				this.kept.remove(lock);
				lock.notifyLost("the database no longer gives it to this acquisition");
			}
		}
	}

	@Override
	public synchronized void close() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

}
