package io.github.dbleader.election.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the observation of a change of this node's leadership.
 * Implement it (or extend {@link DefaultLeadershipChangeObservationConvention}) to change
 * them; with Spring Boot, a bean of this type replaces the default.
 */
public interface LeadershipChangeObservationConvention extends ObservationConvention<LeadershipChangeContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LeadershipChangeContext;
	}

}
