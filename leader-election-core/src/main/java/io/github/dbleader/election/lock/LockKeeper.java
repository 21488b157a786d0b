package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the locks of running runs alive while this node is alive
 * ({@link HeldLock#keepAlive}): every renew interval, one statement extends all of them
 * by a lease ({@link LockRepository#extendLocks}), so that the number of statements does
 * not grow with the number of locks. A lock is kept until its run ends, until
 * {@code maxFor} after its acquisition would be passed by the next extension, or until it
 * is lost; a lost lock's holder is told once ({@link HeldLock#onLost}). A round that
 * cannot reach the database extends nothing: the holders' beliefs run out on their own,
 * and the next round tells them. Runs on a thread of its own, started with the first kept
 * lock, so that the elections' heartbeat never waits for it; its statements write only
 * the locks' lease rows, which fenced runs do not lock.
 */
final class LockKeeper implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LockKeeper.class);

	private final ClusterLocks locks;

	private final KeepAliveSettings settings;

	/** The kept locks and the monotonic time after which they are no longer extended. */
	private final Map<HeldLock, Long> kept = new ConcurrentHashMap<>();

	/** Starts the rounds on a thread of this keeper's own. */
	static final Rounds THREAD = (round, interval) -> {
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "cluster-lock-keeper");
			thread.setDaemon(true);
			return thread;
		});
		long nanos = interval.toNanos();
		scheduler.scheduleWithFixedDelay(round, nanos, nanos, TimeUnit.NANOSECONDS);
		return scheduler::shutdownNow;
	};

	private final Rounds rounds;

	private @Nullable Runnable stop;

	private boolean failing;

	LockKeeper(ClusterLocks locks, KeepAliveSettings settings, Rounds rounds) {
		this.locks = locks;
		this.settings = settings;
		this.rounds = rounds;
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
		if (this.stop == null) {
			this.stop = this.rounds.start(this::roundQuietly, this.settings.renewInterval());
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

	/**
	 * One round: tell the holders of lost locks, then extend the others in one statement.
	 */
	void round() {
		Duration leaseDuration = this.settings.leaseDuration();
		long now = this.locks.clock().nanoTime();
		Map<String, Long> terms = new LinkedHashMap<>();
		List<HeldLock> extending = new ArrayList<>();
		// In the order of the locks, not of their identity hashes: a round sends the same
		// statements in the same order whatever the run (a simulation's seed replays
		// exactly).
		List<Map.Entry<HeldLock, Long>> kept = new ArrayList<>(this.kept.entrySet());
		kept.sort(Comparator.comparing((Map.Entry<HeldLock, Long> entry) -> entry.getKey().key())
			.thenComparingLong((entry) -> entry.getKey().term()));
		kept.forEach((entry) -> {
			HeldLock lock = entry.getKey();
			long until = entry.getValue();
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
		// Before the statement is sent: a slow answer never extends a belief (I2), and
		// each belief ends by what the statement sets while it is under way.
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
		// Some were not extended, and which is unknown: find out one by one (rare: a lock
		// lost or released).
		for (HeldLock lock : extending) {
			if (!lock.renewAlone(leaseDuration)) {
				this.kept.remove(lock);
				lock.notifyLost("the database no longer gives it to this acquisition");
			}
		}
	}

	@Override
	public synchronized void close() {
		if (this.stop != null) {
			this.stop.run();
			this.stop = null;
		}
	}

	/**
	 * Starts the rounds: on a thread of the keeper's own ({@link #THREAD}), or, for a
	 * simulation, in simulated time.
	 */
	@FunctionalInterface
	interface Rounds {

		/**
		 * Run a round every interval, the first an interval from now, each an interval
		 * after the previous one ended.
		 * @param round the round
		 * @param interval the renew interval
		 * @return what stops the rounds
		 */
		Runnable start(Runnable round, Duration interval);

	}

}
