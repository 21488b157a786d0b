package io.github.dbleader.election.aop;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One call of a {@link LeaderOnly @LeaderOnly} method on this node, as
 * {@link LeaderOnlyRuns} recorded it. The times are this node's wall clock, for people to
 * read; whether a run is past its {@code maxRunTime} is decided on the monotonic clock.
 *
 * @param election the election the method runs under
 * @param nodeId this node
 * @param term the term this node led with when the run started, or -1 for a skipped call
 * @param method the bean's class (simple name), a dot and the method's name
 * @param startedAt when the call started
 * @param endedAt when it ended, or {@code null} while it runs
 * @param outcome how it ended
 * @param maxRunTime the longest it should run, or {@code null} for no bound
 */
public record LeaderOnlyRun(String election, String nodeId, long term, String method, Instant startedAt,
		@Nullable Instant endedAt, Outcome outcome, @Nullable Duration maxRunTime) {

	/**
	 * What became of a call.
	 */
	public enum Outcome {

		/** Under way: the method has not returned yet. */
		RUNNING,

		/** The method returned normally. */
		COMPLETED,

		/** The method threw something other than a refusal of the fence. */
		FAILED,

		/**
		 * The method threw a {@link io.github.dbleader.election.NotLeaderException}
		 * (itself or as a cause): its fenced work ({@code Election.runFenced}) found that
		 * this node no longer led, and nothing of it was committed. A method that catches
		 * the exception itself ends {@link #COMPLETED}.
		 */
		REFUSED_BY_FENCE,

		/** This node did not lead when the call came: the method did not run. */
		SKIPPED

	}

}
