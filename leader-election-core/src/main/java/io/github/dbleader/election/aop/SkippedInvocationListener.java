package io.github.dbleader.election.aop;

import java.lang.reflect.Method;

/**
 * Told about each call that {@link LeaderOnlyInterceptor} skipped because this node did
 * not lead the election; used for metrics. Called on the caller's thread, so keep it
 * cheap.
 */
@FunctionalInterface
public interface SkippedInvocationListener {

	/**
	 * A call was skipped.
	 * @param election the election this node did not lead
	 * @param method the method that was not run
	 */
	void skipped(String election, Method method);

}
