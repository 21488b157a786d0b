package io.github.dbleader.election.aop;

import java.time.Duration;

/**
 * Told of each run of a {@link LeaderOnly @LeaderOnly} method that ended on this node
 * ({@link LeaderOnlyRuns}), on the thread of the run: keep it short. Skipped calls are
 * told to {@link SkippedInvocationListener}s instead.
 */
@FunctionalInterface
public interface LeaderOnlyRunListener {

	/**
	 * A run ended.
	 * @param run the run, with its outcome
	 * @param duration how long it ran, on the monotonic clock
	 */
	void runEnded(LeaderOnlyRun run, Duration duration);

}
