package io.github.dbleader.election.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.dbleader.election.ElectionService;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link LeaderOnly @LeaderOnly} method only if this node leads the election named
 * by the annotation; otherwise skips the call without touching the database, logs it at
 * debug level and tells every {@link SkippedInvocationListener}.
 *
 * <p>A skipped call returns {@code null} for reference types, {@link Optional#empty()} for
 * {@code Optional} and the zero value for primitives ({@code false}, {@code 0},
 * {@code '\0'}).
 *
 * <p>The annotation on the method wins over the one on its class; the method is resolved
 * on the target class, so an annotation on an implementation method counts even when the
 * call goes through an interface.
 */
public class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LeaderOnlyInterceptor.class);

	private final Supplier<ElectionService> electionService;

	private final Supplier<List<SkippedInvocationListener>> listeners;

	private final Map<MethodKey, String> elections = new ConcurrentHashMap<>();

	/**
	 * Create an interceptor. Both suppliers are called lazily, at the first call that needs
	 * them, and only once.
	 * @param electionService supplies the election service
	 * @param listeners supplies the listeners for skipped calls
	 */
	public LeaderOnlyInterceptor(Supplier<ElectionService> electionService,
			Supplier<List<SkippedInvocationListener>> listeners) {
		Objects.requireNonNull(electionService, "electionService must not be null");
		Objects.requireNonNull(listeners, "listeners must not be null");
		this.electionService = SingletonSupplier.of(electionService);
		this.listeners = SingletonSupplier.of(listeners);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		String election = this.elections.computeIfAbsent(new MethodKey(method, targetClass),
				(key) -> electionOf(key.method(), key.targetClass()));
		if (this.electionService.get().election(election).isLeader()) {
			return invocation.proceed();
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Skipped " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
					+ "(): this node does not lead election '" + election + "'");
		}
		for (SkippedInvocationListener listener : this.listeners.get()) {
			listener.skipped(election, method);
		}
		return skippedResult(method.getReturnType());
	}

	private static String electionOf(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
		if (annotation == null && specific != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
		}
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, LeaderOnly.class);
		}
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), LeaderOnly.class);
		}
		if (annotation == null) {
			throw new IllegalStateException("No @LeaderOnly found on " + method + " or " + targetClass.getName());
		}
		return annotation.election();
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

	private record MethodKey(Method method, Class<?> targetClass) {
	}

}
