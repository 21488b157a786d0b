package io.github.dbleader.autoconfigure.test;

import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;

/**
 * Resets the roles of the {@link LeaderElectionTestControl} after each test method, so
 * that a test that shares a cached application context with another one starts from no
 * leader, no term and free locks.
 */
public class LeaderElectionTestExecutionListener implements TestExecutionListener, Ordered {

	@Override
	public void afterTestMethod(TestContext testContext) {
		if (testContext.hasApplicationContext()) {
			testContext.getApplicationContext()
				.getBeanProvider(LeaderElectionTestControl.class)
				.ifAvailable(LeaderElectionTestControl::reset);
		}
	}

	@Override
	public int getOrder() {
		// Before the listeners that may close or dirty the context.
		return Ordered.LOWEST_PRECEDENCE - 100;
	}

}
