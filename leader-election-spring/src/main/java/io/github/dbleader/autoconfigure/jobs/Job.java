package io.github.dbleader.autoconfigure.jobs;

import java.lang.reflect.Method;

/**
 * A method that the {@code jobs} endpoint can run now: a method without parameters of a
 * singleton bean, guarded by {@code @LeaderOnly} or {@code @ClusterLock}.
 *
 * @param name the bean's name, a dot and the method's name: unique in the context
 * @param kind which guard runs it
 * @param guard the election ({@code @LeaderOnly}) or the lock ({@code @ClusterLock}) it
 * runs under
 * @param method the bean's class (simple name), a dot and the method's name, as the run
 * history of the {@code leader} endpoint names it
 * @param beanName the bean's name
 * @param invocable the method to invoke on the bean's proxy
 */
public record Job(String name, Kind kind, String guard, String method, String beanName, Method invocable) {

	/**
	 * Which guard runs a job.
	 */
	public enum Kind {

		/** {@code @LeaderOnly}: the leader of its election runs it. */
		LEADER_ONLY,

		/** {@code @ClusterLock}: the node that takes its lock runs it. */
		CLUSTER_LOCK

	}

}
