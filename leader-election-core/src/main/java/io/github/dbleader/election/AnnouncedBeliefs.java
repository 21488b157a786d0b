package io.github.dbleader.election;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The elections of a node whose belief was announced and not revoked yet, and a time
 * before which none of those beliefs ends: what the watchdog checks (I7). A node may lead
 * tens of thousands of elections, and the watchdog runs every quarter renew interval; it
 * looks at them only once the earliest end may have come, which the leaders' shared
 * refresh keeps moving on.
 */
final class AnnouncedBeliefs {

	/**
	 * Longest the watchdog goes without looking at every belief: a bound for beliefs that
	 * last longer, and for a node that leads nothing.
	 */
	static final long LONGEST_UNCHECKED_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final Set<ElectionLoop> believing = ConcurrentHashMap.newKeySet();

	/**
	 * No announced belief ends before this (monotonic clock): a grant lowers it to its
	 * own deadline, a check raises it to the earliest deadline it found. Extensions leave
	 * it: they only end beliefs later.
	 */
	private final AtomicLong noEndBefore;

	/**
	 * @param nowNanos the monotonic clock now
	 */
	AnnouncedBeliefs(long nowNanos) {
		this.noEndBefore = new AtomicLong(nowNanos);
	}

	/**
	 * A belief was announced (granted, not extended).
	 * @param loop its election
	 * @param deadlineNanos when it ends unless extended
	 */
	void granted(ElectionLoop loop, long deadlineNanos) {
		// In the set before the bound is lowered: a check that started before this misses
		// neither (it iterates a set that has the election, or sees the lowered bound
		// after).
		this.believing.add(loop);
		lower(deadlineNanos);
	}

	/**
	 * A belief was revoked.
	 * @param loop its election
	 */
	void ended(ElectionLoop loop) {
		this.believing.remove(loop);
	}

	/**
	 * The watchdog's pass: where the earliest end may have come, end every belief whose
	 * deadline passed ({@link ElectionLoop#checkDeadline(long)}) and learn when the next
	 * one ends.
	 * @param nowNanos the monotonic clock, read once for the pass
	 * @return whether the beliefs were looked at
	 */
	boolean check(long nowNanos) {
		if (nowNanos - this.noEndBefore.get() < 0) {
			return false;
		}
		// Grants during the pass lower the bound from here; the pass then lowers it to
		// what it found, so that neither is lost.
		this.noEndBefore.set(nowNanos + LONGEST_UNCHECKED_NANOS);
		long earliest = nowNanos + LONGEST_UNCHECKED_NANOS;
		for (ElectionLoop loop : this.believing) {
			long remaining = loop.checkDeadline(nowNanos);
			if (remaining < earliest - nowNanos) {
				earliest = nowNanos + remaining;
			}
		}
		lower(earliest);
		return true;
	}

	/**
	 * @return how many elections have an announced belief
	 */
	int size() {
		return this.believing.size();
	}

	private void lower(long nanos) {
		this.noEndBefore.accumulateAndGet(nanos,
				(current, candidate) -> (candidate - current < 0) ? candidate : current);
	}

}
