package io.github.dbleader.election.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * A method interceptor that runs each call only where this node may, and skips it
 * elsewhere: the one place that decides what a skipped call does, for
 * {@link LeaderOnlyInterceptor} and {@link ClusterLockInterceptor}. It reads the settings
 * of a method once per method and target class; a skipped call is logged at debug level
 * with the reason, told to {@link #skipped}, and returns {@link #skippedResult}.
 *
 * @param <S> the settings of an annotated method
 */
abstract class SkippingMethodInterceptor<S> implements MethodInterceptor {

	private final Logger logger = LoggerFactory.getLogger(getClass());

	private final Map<MethodKey, S> settings = new ConcurrentHashMap<>();

	@Override
	public final @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Class<?> targetClass = targetClass(invocation);
		S settings = this.settings.computeIfAbsent(new MethodKey(method, targetClass),
				(key) -> settingsOf(key.method(), key.targetClass()));
		GuardedCall.Listener watcher = GuardedCall.claim();
		Call call;
		try {
			call = proceedIfAllowed(invocation, settings);
		}
		finally {
			if (watcher != null) {
				GuardedCall.release();
			}
		}
		if (call.ran()) {
			return call.result();
		}
		if (this.logger.isDebugEnabled()) {
			this.logger.debug("Skipped " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + "(): "
					+ skipReason(settings));
		}
		if (watcher != null) {
			watcher.skipped(skipReason(settings));
		}
		skipped(settings, method);
		return skippedResult(method.getReturnType());
	}

	/**
	 * Read the settings of an annotated method; called once per method and target class.
	 * @param method the method called
	 * @param targetClass the class of the target
	 * @return the settings
	 */
	abstract S settingsOf(Method method, Class<?> targetClass);

	/**
	 * Proceed with the call if this node may run it, telling {@link GuardedCall#started}
	 * the term just before the method runs.
	 * @param invocation the call
	 * @param settings the method's settings
	 * @return what the call returned, or {@link Call#SKIPPED}
	 * @throws Throwable what the call threw
	 */
	abstract Call proceedIfAllowed(MethodInvocation invocation, S settings) throws Throwable;

	/**
	 * Why a call was skipped, for the debug log.
	 * @param settings the method's settings
	 * @return the reason
	 */
	abstract String skipReason(S settings);

	/**
	 * Called after a call was skipped; does nothing by default.
	 * @param settings the method's settings
	 * @param method the method
	 */
	void skipped(S settings, Method method) {
	}

	/**
	 * The class of the target of a call.
	 * @param invocation the call
	 * @return the target's class, or the method's declaring class for a call without
	 * target
	 */
	static Class<?> targetClass(MethodInvocation invocation) {
		Object target = invocation.getThis();
		return (target != null) ? AopUtils.getTargetClass(target) : invocation.getMethod().getDeclaringClass();
	}

	/**
	 * Find an annotation on the method, resolved on the target class first, so that one
	 * on an implementation method counts even when the call goes through an interface.
	 * @param <A> the annotation type
	 * @param method the method called
	 * @param targetClass the class of the target
	 * @param type the annotation type
	 * @return the annotation, or {@code null}
	 */
	static <A extends Annotation> @Nullable A findOnMethod(Method method, Class<?> targetClass, Class<A> type) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		A annotation = AnnotatedElementUtils.findMergedAnnotation(specific, type);
		if (annotation == null && specific != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
		}
		return annotation;
	}

	/**
	 * The value a skipped call returns.
	 * @param type the method's return type
	 * @return {@code null}, {@code Optional.empty()} or a primitive zero
	 */
	static @Nullable Object skippedResult(Class<?> type) {
		if (type == Optional.class) {
			return Optional.empty();
		}
		if (!type.isPrimitive() || type == void.class) {
			return null;
		}
		if (type == boolean.class) {
			return false;
		}
		if (type == char.class) {
			return '\0';
		}
		if (type == byte.class) {
			return (byte) 0;
		}
		if (type == short.class) {
			return (short) 0;
		}
		if (type == int.class) {
			return 0;
		}
		if (type == long.class) {
			return 0L;
		}
		if (type == float.class) {
			return 0F;
		}
		return 0D;
	}

	/**
	 * What became of a call.
	 *
	 * @param ran whether it ran
	 * @param result what it returned
	 */
	record Call(boolean ran, @Nullable Object result) {

		static final Call SKIPPED = new Call(false, null);

		static Call ran(@Nullable Object result) {
			return new Call(true, result);
		}

	}

	private record MethodKey(Method method, Class<?> targetClass) {
	}

}
