package io.github.dbleader.election.observation;

import java.util.List;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;

/**
 * The observations a test registry handled, each as one line: its name and its
 * low-cardinality key values in key order, then {@code error=} and the error's class if
 * it has one, so that a test compares them all at once.
 */
public final class ObservedContexts {

	private ObservedContexts() {
	}

	/**
	 * Describe handled observations.
	 * @param contexts the contexts of the observations
	 * @return one line per observation
	 */
	public static List<String> describe(List<Observation.Context> contexts) {
		return contexts.stream().map(ObservedContexts::describe).toList();
	}

	private static String describe(Observation.Context context) {
		String keyValues = String.join(" ", lines(context.getLowCardinalityKeyValues()));
		Throwable error = context.getError();
		return context.getName() + " " + keyValues
				+ ((error != null) ? " error=" + error.getClass().getSimpleName() : "");
	}

	/**
	 * The high-cardinality key values of an observation, for the term and node id.
	 * @param context the context
	 * @return {@code key=value} each, in key order
	 */
	public static List<String> highCardinality(Observation.Context context) {
		return lines(context.getHighCardinalityKeyValues());
	}

	private static List<String> lines(KeyValues keyValues) {
		return keyValues.stream().map((keyValue) -> keyValue.getKey() + "=" + keyValue.getValue()).toList();
	}

}
