package io.github.dbleader.election.observation;

import io.github.dbleader.election.observation.LeaderElectionObservationDocumentation.KeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LockCallObservationConvention}: named {@value #NAME}, with the
 * lock's name and the outcome as low-cardinality key values and the acquisition's term,
 * once taken, as a high-cardinality one.
 */
public class DefaultLockCallObservationConvention implements LockCallObservationConvention {

	/** Name of the observation. */
	public static final String NAME = "leader.election.lock.call";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LockCallContext context) {
		return "lock " + context.getLock();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockCallContext context) {
		return KeyValues.of(KeyNames.LOCK.withValue(context.getLock()),
				KeyNames.OUTCOME.withValue(context.getOutcomeTag()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockCallContext context) {
		return (context.getTerm() < 0) ? KeyValues.empty()
				: KeyValues.of(KeyNames.TERM.withValue(Long.toString(context.getTerm())));
	}

}
