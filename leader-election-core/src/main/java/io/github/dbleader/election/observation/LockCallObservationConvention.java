package io.github.dbleader.election.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the observation of a call under a cluster lock. Implement it
 * (or extend {@link DefaultLockCallObservationConvention}) to change them; with Spring
 * Boot, a bean of this type replaces the default.
 */
public interface LockCallObservationConvention extends ObservationConvention<LockCallContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockCallContext;
	}

}
