package io.github.dbleader.election.observation;

import java.util.Locale;

import io.github.dbleader.election.observation.LeaderElectionObservationDocumentation.KeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LeadershipChangeObservationConvention}: named {@value #NAME}, with
 * the election, the change and the reason as low-cardinality key values and this node's
 * id and the term as high-cardinality ones.
 */
public class DefaultLeadershipChangeObservationConvention implements LeadershipChangeObservationConvention {

	/** Name of the observation. */
	public static final String NAME = "leader.election.leadership.change";

	/** The reason of a grant. */
	static final String NO_REASON = "NONE";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LeadershipChangeContext context) {
		return "leadership " + context.getChange().name().toLowerCase(Locale.ROOT) + " " + context.getElection();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LeadershipChangeContext context) {
		String reason = context.getReason();
		return KeyValues.of(KeyNames.ELECTION.withValue(context.getElection()),
				KeyNames.CHANGE.withValue(context.getChange().name()),
				KeyNames.REASON.withValue((reason != null) ? reason : NO_REASON));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LeadershipChangeContext context) {
		return KeyValues.of(KeyNames.NODE.withValue(context.getNodeId()),
				KeyNames.TERM.withValue(Long.toString(context.getTerm())));
	}

}
