package io.github.dbleader.election.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of the observation of a fenced transaction. Implement it (or
 * extend {@link DefaultFencedTransactionObservationConvention}) to change them; with
 * Spring Boot, a bean of this type replaces the default.
 */
public interface FencedTransactionObservationConvention extends ObservationConvention<FencedTransactionContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof FencedTransactionContext;
	}

}
