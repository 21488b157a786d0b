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
	static final String NO_REASON = "none";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LeadershipChangeContext context) {
		return "leadership " + lowerCase(context.getChange().name()) + " " + context.getElection();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LeadershipChangeContext context) {
		String reason = context.getReason();
		return KeyValues.of(KeyNames.ELECTION.withValue(context.getElection()),
				KeyNames.CHANGE.withValue(lowerCase(context.getChange().name())),
				KeyNames.REASON.withValue((reason != null) ? lowerCase(reason) : NO_REASON));
	}

	/** Tag values in lower case, as the election's meters write them. */
	private static String lowerCase(String name) {
		return name.toLowerCase(Locale.ROOT);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LeadershipChangeContext context) {
		return KeyValues.of(KeyNames.NODE.withValue(context.getNodeId()),
				KeyNames.TERM.withValue(Long.toString(context.getTerm())));
	}

}
