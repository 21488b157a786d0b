package io.github.dbleader.election.aop;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Advisor that applies {@link ClusterLockInterceptor} to methods annotated with
 * {@link ClusterLock @ClusterLock}. Ordered like {@link LeaderOnlyAdvisor}: ahead of
 * {@code @Transactional}, so a node that does not get the lock opens no transaction.
 */
public class ClusterLockAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, ClusterLock.class, true);

	private final ClusterLockInterceptor interceptor;

	/**
	 * Create an advisor.
	 * @param interceptor the interceptor to apply
	 */
	public ClusterLockAdvisor(ClusterLockInterceptor interceptor) {
		this.interceptor = interceptor;
		setOrder(LeaderOnlyAdvisor.DEFAULT_ORDER);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
