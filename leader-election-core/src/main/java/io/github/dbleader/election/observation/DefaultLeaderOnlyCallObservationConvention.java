package io.github.dbleader.election.observation;

import io.github.dbleader.election.observation.LeaderElectionObservationDocumentation.KeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LeaderOnlyCallObservationConvention}: named {@value #NAME}, with the
 * election, the outcome and the class and method called as low-cardinality key values.
 */
public class DefaultLeaderOnlyCallObservationConvention implements LeaderOnlyCallObservationConvention {

	/** Name of the observation. */
	public static final String NAME = "leader.election.leader.only.call";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LeaderOnlyCallContext context) {
		return "leader-only " + context.getTargetClass().getSimpleName() + "." + context.getMethod().getName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LeaderOnlyCallContext context) {
		return KeyValues.of(KeyNames.ELECTION.withValue(context.getElection()),
				KeyNames.OUTCOME.withValue(context.getOutcomeTag()),
				KeyNames.CODE_NAMESPACE.withValue(context.getTargetClass().getName()),
				KeyNames.CODE_FUNCTION.withValue(context.getMethod().getName()));
	}

}
