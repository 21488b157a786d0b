package io.github.dbleader.election.observation;

import java.util.Locale;
import java.util.Objects;

import io.micrometer.observation.Observation;

/**
 * Context of an observation of work that ends with an outcome: running until the work
 * says otherwise. The outcome is a low-cardinality key value of the default conventions.
 *
 * @param <O> the outcomes
 */
public abstract class OutcomeContext<O extends Enum<O>> extends Observation.Context {

	private volatile O outcome;

	/**
	 * Create a context.
	 * @param running the outcome while the work runs
	 */
	protected OutcomeContext(O running) {
		this.outcome = Objects.requireNonNull(running, "running must not be null");
	}

	/**
	 * @return what became of the work so far
	 */
	public O getOutcome() {
		return this.outcome;
	}

	/**
	 * What became of the work so far, as the default conventions tag it.
	 * @return the outcome's name in lower case, as the election's meters write tag values
	 */
	public String getOutcomeTag() {
		return this.outcome.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Say what became of the work.
	 * @param outcome the outcome
	 */
	public void setOutcome(O outcome) {
		this.outcome = Objects.requireNonNull(outcome, "outcome must not be null");
	}

}
