package io.github.dbleader.election.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the observation of a {@code @LeaderOnly} call. Implement it (or
 * extend {@link DefaultLeaderOnlyCallObservationConvention}) to change them; with Spring
 * Boot, a bean of this type replaces the default.
 */
public interface LeaderOnlyCallObservationConvention extends ObservationConvention<LeaderOnlyCallContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LeaderOnlyCallContext;
	}

}
