package io.github.dbleader.election.lock;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The runs under locks on this node: those running and the last few that ended, per lock.
 * Bounded: a lock keeps {@value #KEPT} ended runs.
 */
final class RunHistory {

	/** Ended runs kept per lock. */
	static final int KEPT = 5;

	private final Clock wallClock;

	private final Map<HeldLock, LockRun> running = new ConcurrentHashMap<>();

	private final Map<String, Deque<LockRun>> ended = new ConcurrentHashMap<>();

	RunHistory(Clock wallClock) {
		this.wallClock = wallClock;
	}

	void started(HeldLock lock) {
		this.running.put(lock,
				new LockRun(lock.name(), lock.term(), this.wallClock.instant(), null, LockRun.Outcome.RUNNING));
	}

	LockRun ended(HeldLock lock, LockRun.Outcome outcome) {
		LockRun started = this.running.remove(lock);
		LockRun run = new LockRun(lock.name(), lock.term(),
				(started != null) ? started.startedAt() : this.wallClock.instant(), this.wallClock.instant(), outcome);
		Deque<LockRun> runs = this.ended.computeIfAbsent(lock.name(), (name) -> new ArrayDeque<>());
		synchronized (runs) {
			runs.addFirst(run);
			while (runs.size() > KEPT) {
				runs.removeLast();
			}
		}
		return run;
	}

	/** The running runs of a lock, then its last ended ones, newest first. */
	List<LockRun> runs(String name) {
		List<LockRun> runs = new ArrayList<>();
		this.running.values()
			.stream()
			.filter((run) -> run.name().equals(name))
			.sorted((a, b) -> b.startedAt().compareTo(a.startedAt()))
			.forEach(runs::add);
		Deque<LockRun> ended = this.ended.get(name);
		if (ended != null) {
			synchronized (ended) {
				runs.addAll(ended);
			}
		}
		return runs;
	}

	/** The running runs whose acquisition has passed its {@code atMostFor}. */
	List<LockRun> runningPastAtMostFor() {
		return this.running.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().isPastAtMostFor())
			.map(Map.Entry::getValue)
			.toList();
	}

}
