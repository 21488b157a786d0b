package io.github.dbleader.autoconfigure.aop;

import java.util.List;

/**
 * Thrown at start-up when the context has methods that only the leader may run (such as
 * {@link io.github.dbleader.election.aop.LeaderOnly @LeaderOnly} ones) but no election
 * service: rather than let them run on every node. Carries what
 * {@code ElectionRequiredFailureAnalyzer} needs to tell the user how to fix it.
 */
public class ElectionRequiredException extends IllegalStateException {

	private final String guardedMethod;

	private final String annotation;

	private final String reason;

	private final List<String> dataSources;

	/**
	 * Create an exception.
	 * @param guardedMethod one guarded method, as {@code Class#method}, or the class if
	 * the annotation is on the class
	 * @param annotation simple name of the annotation that guards it, e.g.
	 * {@code @LeaderOnly}
	 * @param reason why no election could be configured
	 * @param dataSources names of the {@code DataSource} beans in the context
	 */
	public ElectionRequiredException(String guardedMethod, String annotation, String reason, List<String> dataSources) {
		super(annotation + " " + guardedMethod + " needs leader election, but no election is configured: " + reason);
		this.guardedMethod = guardedMethod;
		this.annotation = annotation;
		this.reason = reason;
		this.dataSources = List.copyOf(dataSources);
	}

	/**
	 * Return one of the guarded methods.
	 * @return {@code Class#method}, or the class name if the annotation is on the class
	 */
	public String getGuardedMethod() {
		return this.guardedMethod;
	}

	/**
	 * Return the annotation that guards the method.
	 * @return its name with a leading {@code @}
	 */
	public String getAnnotation() {
		return this.annotation;
	}

	/**
	 * Return why no election could be configured.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

	/**
	 * Return the names of the {@code DataSource} beans in the context.
	 * @return the bean names, empty if there are none
	 */
	public List<String> getDataSources() {
		return this.dataSources;
	}

}
