package io.github.dbleader.election.aop;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.StaticMethodMatcher;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * Advisor that applies {@link LeaderOnlyInterceptor} to methods annotated with
 * {@link LeaderOnly @LeaderOnly} and to the methods of annotated classes. Picked up by
 * any auto-proxy creator in the context (register it as an infrastructure bean).
 *
 * <p>
 * Its order defaults to {@link #DEFAULT_ORDER}, which takes precedence over
 * {@code @Transactional} (ordered {@link Ordered#LOWEST_PRECEDENCE} by default) and most
 * other advice: the leadership check runs first, so a follower returns before any
 * transaction opens or any other advice runs. {@code @Async} advice still runs before it,
 * so the check happens on the executor's thread when the work starts.
 */
public class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

	/**
	 * Default order: ahead of {@code @Transactional} and of advice with default order.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

	private final Pointcut pointcut;

	private final LeaderOnlyInterceptor interceptor;

	/**
	 * Create an advisor.
	 * @param interceptor the interceptor to apply
	 */
	public LeaderOnlyAdvisor(LeaderOnlyInterceptor interceptor) {
		this.interceptor = interceptor;
		// Class-level annotation (also on a superclass or interface), or method-level.
		this.pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(LeaderOnly.class, true).getClassFilter(),
				new NotObjectMethod())
			.union(new AnnotationMatchingPointcut(null, LeaderOnly.class, true));
		setOrder(DEFAULT_ORDER);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	/**
	 * A class-level annotation guards the class's own methods, not {@code toString()},
	 * {@code equals()} and {@code hashCode()}.
	 */
	private static final class NotObjectMethod extends StaticMethodMatcher {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return method.getDeclaringClass() != Object.class && !AopUtils.isEqualsMethod(method)
					&& !AopUtils.isHashCodeMethod(method) && !AopUtils.isToStringMethod(method);
		}

	}

}
