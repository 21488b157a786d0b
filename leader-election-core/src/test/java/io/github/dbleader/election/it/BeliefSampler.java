package io.github.dbleader.election.it;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watches, on a thread of its own, which nodes believe they lead: every millisecond it
 * reads {@code Election.term()} of every watched node (one read gives both the belief and
 * its term) and records each node's reigns with bounds on when they began and ended.
 *
 * <p>
 * Two believers are reported only from a sweep that read all nodes within
 * {@link #MAX_SWEEP_NANOS}: a sweep the scheduler interrupted could read the old leader
 * before its belief ended and the new one after its belief began. Two real beliefs are
 * always separated by at least the database round trips of a hand-over, longer than that.
 */
public final class BeliefSampler implements AutoCloseable {

	/** Longest sweep whose reads count as one instant. */
	public static final long MAX_SWEEP_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

	private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final List<ElectionNode> nodes = new CopyOnWriteArrayList<>();

	private final Thread thread;

	private volatile boolean running = true;

	/** Reigns still running, by watched node. Sampler thread only. */
	private final Map<ElectionNode, OpenReign> current = new HashMap<>();

	/**
	 * Sweep start of the last read that saw a node not believing. Sampler thread only.
	 */
	private final Map<ElectionNode, Long> lastSeenFollowing = new HashMap<>();

	/** Guarded by {@code this}. */
	private final List<Reign> ended = new ArrayList<>();

	/** Guarded by {@code this}. */
	private final List<String> overlaps = new ArrayList<>();

	/** Guarded by {@code this}. */
	private final List<Throwable> failures = new ArrayList<>();

	/** Guarded by {@code this}. */
	private long sweeps;

	/** Guarded by {@code this}. */
	private long instantSweeps;

	/** Start of the last completed sweep. Guarded by {@code this}. */
	private long lastSweepStart = Long.MIN_VALUE;

	/** Longest time between the starts of two sweeps. Guarded by {@code this}. */
	private long longestGapNanos;

	/** Start sampling; nodes are added with {@link #watch(ElectionNode)}. */
	public BeliefSampler() {
		this.thread = new Thread(this::run, "belief-sampler");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Watch a node from now on.
	 * @param node the node
	 */
	public void watch(ElectionNode node) {
		this.nodes.add(node);
	}

	/**
	 * Every reign up to now, ended or not, in the order they began. Waits for a sweep
	 * that starts after this call, so that what the caller saw before is included.
	 * @return the reigns
	 */
	public synchronized List<Reign> reigns() {
		awaitSweepAfter(System.nanoTime());
		List<Reign> all = new ArrayList<>(this.ended);
		this.current.forEach((node, open) -> all.add(open.toReign(Long.MAX_VALUE, open.seenUntil)));
		all.sort(Comparator.comparingLong(Reign::seenFrom));
		return all;
	}

	/**
	 * The first reign of a node that was first seen after a moment.
	 * @param nodeId the node
	 * @param afterNanos the moment, from {@link System#nanoTime()}
	 * @return the reign, if one was seen
	 */
	public Optional<Reign> firstReignOf(String nodeId, long afterNanos) {
		return reigns().stream()
			.filter((reign) -> reign.nodeId().equals(nodeId) && reign.seenFrom() > afterNanos)
			.findFirst();
	}

	/**
	 * The first reign of any node that was first seen after a moment.
	 * @param afterNanos the moment, from {@link System#nanoTime()}
	 * @return the reign, if one was seen
	 */
	public Optional<Reign> firstReignAfter(long afterNanos) {
		return reigns().stream().filter((reign) -> reign.seenFrom() > afterNanos).findFirst();
	}

	/**
	 * The reign of a node in a term.
	 * @param nodeId the node
	 * @param term the term
	 * @return the reign, if one was seen
	 */
	public Optional<Reign> reignOf(String nodeId, long term) {
		return reigns().stream().filter((reign) -> reign.nodeId().equals(nodeId) && reign.term() == term).findFirst();
	}

	/**
	 * Assert that no sweep saw two believers, that no read of a belief threw, and that
	 * enough sweeps counted as one instant for this to mean something.
	 */
	public synchronized void assertNeverTwoBelievers() {
		awaitSweepAfter(System.nanoTime());
		assertThat(this.failures).as("exceptions thrown to callers of Election.term()/isLeader()").isEmpty();
		assertThat(this.overlaps).as("sweeps that saw more than one node believe it leads").isEmpty();
		assertThat(this.instantSweeps)
			.as("sweeps within %d ns out of %d (longest gap between sweeps %d ms)", MAX_SWEEP_NANOS, this.sweeps,
					TimeUnit.NANOSECONDS.toMillis(this.longestGapNanos))
			.isGreaterThanOrEqualTo(100)
			.isGreaterThanOrEqualTo(this.sweeps / 2);
	}

	private void awaitSweepAfter(long nanos) {
		long deadline = nanos + TimeUnit.SECONDS.toNanos(5);
		while (this.lastSweepStart - nanos <= 0 || this.lastSweepStart == Long.MIN_VALUE) {
			long left = deadline - System.nanoTime();
			if (left <= 0 || !this.running) {
				throw new IllegalStateException("The belief sampler has not swept for 5 seconds");
			}
			try {
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	@Override
	public void close() {
		this.running = false;
		LockSupport.unpark(this.thread);
		try {
			this.thread.join(TimeUnit.SECONDS.toMillis(5));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void run() {
		long[] terms = new long[0];
		while (this.running) {
			// One snapshot for the sizing and the sweep: a node watched meanwhile waits
			// for the next.
			List<ElectionNode> watched = List.copyOf(this.nodes);
			if (terms.length < watched.size()) {
				terms = new long[watched.size() * 2];
			}
			int count = 0;
			Throwable failure = null;
			long start = System.nanoTime();
			for (ElectionNode node : watched) {
				try {
					terms[count] = node.election().term();
				}
				catch (Throwable ex) {
					terms[count] = -1;
					failure = ex;
				}
				count++;
			}
			long end = System.nanoTime();
			int believers = 0;
			for (int i = 0; i < count; i++) {
				record(watched.get(i), terms[i], start, end);
				if (terms[i] >= 0) {
					believers++;
				}
			}
			boolean instant = end - start <= MAX_SWEEP_NANOS;
			synchronized (this) {
				this.sweeps++;
				if (instant) {
					this.instantSweeps++;
				}
				if (this.lastSweepStart != Long.MIN_VALUE) {
					this.longestGapNanos = Math.max(this.longestGapNanos, start - this.lastSweepStart);
				}
				this.lastSweepStart = start;
				notifyAll();
				if (failure != null) {
					this.failures.add(failure);
				}
				if (instant && believers > 1 && this.overlaps.size() < 20) {
					this.overlaps.add(describe(terms, watched, count));
				}
			}
			LockSupport.parkNanos(PERIOD_NANOS);
		}
	}

	private void record(ElectionNode node, long term, long sweepStart, long sweepEnd) {
		OpenReign open = this.current.get(node);
		if (open != null && open.term != term) {
			// The belief read at the previous sweep ended before this read.
			synchronized (this) {
				this.current.remove(node);
				this.ended.add(open.toReign(sweepEnd, open.seenUntil));
			}
			this.lastSeenFollowing.put(node, open.seenUntil);
			open = null;
		}
		if (term < 0) {
			this.lastSeenFollowing.put(node, sweepStart);
			return;
		}
		if (open == null) {
			// The belief began after the last read that saw none, and before this read.
			long after = this.lastSeenFollowing.getOrDefault(node, Long.MIN_VALUE);
			synchronized (this) {
				this.current.put(node, new OpenReign(node.nodeId(), term, after, sweepEnd, sweepStart));
			}
		}
		else {
			open.seenUntil = sweepStart;
		}
	}

	private static String describe(long[] terms, List<ElectionNode> watched, int count) {
		StringBuilder description = new StringBuilder("at ").append(System.nanoTime()).append(':');
		for (int i = 0; i < count; i++) {
			if (terms[i] >= 0) {
				description.append(' ').append(watched.get(i).nodeId()).append(" (term ").append(terms[i]).append(')');
			}
		}
		return description.toString();
	}

	/**
	 * One node's uninterrupted belief in one term, as sampled. All times are
	 * {@link System#nanoTime()} readings.
	 *
	 * @param nodeId the node
	 * @param term the term it believed it held
	 * @param beganAfter the belief began after this moment (a read that saw no belief)
	 * @param seenFrom the belief had begun by this moment (the first read that saw it)
	 * @param seenUntil the belief still held at this moment (the last read that saw it)
	 * @param endedBy the belief had ended by this moment, or {@link Long#MAX_VALUE} if it
	 * has not been seen to end
	 */
	public record Reign(String nodeId, long term, long beganAfter, long seenFrom, long seenUntil, long endedBy) {

		/**
		 * @return whether the reign was seen to end
		 */
		public boolean hasEnded() {
			return this.endedBy != Long.MAX_VALUE;
		}

	}

	private static final class OpenReign {

		private final String nodeId;

		private final long term;

		private final long beganAfter;

		private final long seenFrom;

		private volatile long seenUntil;

		OpenReign(String nodeId, long term, long beganAfter, long seenFrom, long seenUntil) {
			this.nodeId = nodeId;
			this.term = term;
			this.beganAfter = beganAfter;
			this.seenFrom = seenFrom;
			this.seenUntil = seenUntil;
		}

		Reign toReign(long endedBy, long lastSeen) {
			return new Reign(this.nodeId, this.term, this.beganAfter, this.seenFrom, lastSeen, endedBy);
		}

	}

}
