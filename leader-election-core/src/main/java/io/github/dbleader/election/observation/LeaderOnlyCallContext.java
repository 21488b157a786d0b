package io.github.dbleader.election.observation;

import java.lang.reflect.Method;
import java.util.Objects;

/**
 * Context of the observation of a {@code @LeaderOnly} call
 * ({@link LeaderElectionObservationDocumentation#LEADER_ONLY_CALL}).
 */
public class LeaderOnlyCallContext extends OutcomeContext<LeaderOnlyCallContext.Outcome> {

	private final String election;

	private final Class<?> targetClass;

	private final Method method;

	/**
	 * Create a context.
	 * @param election the election the method is guarded by
	 * @param targetClass the class of the target of the call
	 * @param method the method called
	 */
	public LeaderOnlyCallContext(String election, Class<?> targetClass, Method method) {
		super(Outcome.RUNNING);
		this.election = Objects.requireNonNull(election, "election must not be null");
		this.targetClass = Objects.requireNonNull(targetClass, "targetClass must not be null");
		this.method = Objects.requireNonNull(method, "method must not be null");
	}

	/**
	 * @return the election the method is guarded by
	 */
	public String getElection() {
		return this.election;
	}

	/**
	 * @return the class of the target of the call
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

	/**
	 * @return the method called
	 */
	public Method getMethod() {
		return this.method;
	}

	/** What became of a {@code @LeaderOnly} call. */
	public enum Outcome {

		/** The call has not ended yet. */
		RUNNING,

		/** This node led the election, and the method returned. */
		COMPLETED,

		/** This node led the election, and the method threw. */
		FAILED,

		/**
		 * This node led the election when the call started, and the method threw a
		 * {@code NotLeaderException}, itself or as a cause: a fenced transaction in it
		 * was refused because the leadership had ended. Nothing of that transaction was
		 * committed.
		 */
		REFUSED,

		/** This node did not lead the election: the method was not called. */
		SKIPPED

	}

}
