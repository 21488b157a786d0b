package io.github.dbleader.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a service runs when its rounds run where the test says: the extra rounds it asks
 * for wait in {@link #extra} until {@link #extraRounds()}, and its listener callbacks run
 * at once on the thread that causes them.
 */
class SteppedScheduling implements ElectionService.Scheduling, ElectionService.Scheduled {

	final List<Runnable> extra = new ArrayList<>();

	/** Run the extra rounds asked for so far. */
	void extraRounds() {
		List<Runnable> queued = new ArrayList<>(this.extra);
		this.extra.clear();
		queued.forEach(Runnable::run);
	}

	@Override
	public ElectionService.Scheduled start(Runnable round, Runnable watchdog, ElectionSettings settings) {
		return this;
	}

	@Override
	public void extraRound(Runnable round) {
		this.extra.add(round);
	}

	@Override
	public void stopRounds() {
	}

	@Override
	public void stop(Duration wait) {
	}

	@Override
	public void runCallback(Runnable callback) {
		callback.run();
	}

	@Override
	public boolean waitsForFirstPreparation() {
		return false;
	}

}
