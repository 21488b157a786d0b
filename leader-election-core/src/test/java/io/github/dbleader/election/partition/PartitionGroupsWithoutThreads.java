package io.github.dbleader.election.partition;

import java.time.Duration;
import java.util.function.BiFunction;

import io.github.dbleader.election.MonotonicClock;

/**
 * Partition groups whose balancing steps the caller runs where it likes, instead of on a
 * thread of each group's own: the simulation of the election package runs them as events
 * in simulated time.
 */
public final class PartitionGroupsWithoutThreads {

	private PartitionGroupsWithoutThreads() {
	}

	/**
	 * Create a registry as {@code PartitionGroups}'s public constructor does, on the
	 * given clock, with each group's balancing steps started by the caller.
	 * @param pins where pins are kept
	 * @param clock the monotonic clock
	 * @param steps given a step and the renew interval, starts the steps (the first at
	 * once, each an interval after the previous one ended) and returns what stops them
	 * @return the registry
	 */
	public static PartitionGroups create(PartitionPins pins, MonotonicClock clock,
			BiFunction<Runnable, Duration, Runnable> steps) {
		return new PartitionGroups(pins, clock, (group, step, interval) -> steps.apply(step, interval));
	}

}
