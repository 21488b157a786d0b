package io.github.dbleader.election.observation;

import io.github.dbleader.election.observation.LeaderElectionObservationDocumentation.KeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link FencedTransactionObservationConvention}: named {@value #NAME}, with
 * the election and the outcome as low-cardinality key values and the term as a
 * high-cardinality one.
 */
public class DefaultFencedTransactionObservationConvention implements FencedTransactionObservationConvention {

	/** Name of the observation. */
	public static final String NAME = "leader.election.fenced.transaction";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(FencedTransactionContext context) {
		return "fenced transaction " + context.getElection();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(FencedTransactionContext context) {
		return KeyValues.of(KeyNames.ELECTION.withValue(context.getElection()),
				KeyNames.OUTCOME.withValue(context.getOutcomeTag()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(FencedTransactionContext context) {
		return (context.getTerm() < 0) ? KeyValues.empty()
				: KeyValues.of(KeyNames.TERM.withValue(Long.toString(context.getTerm())));
	}

}
