package io.github.dbleader.election.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.dbleader.election.ElectionService;
import org.aopalliance.intercept.MethodInvocation;

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
public class LeaderOnlyInterceptor extends SkippingMethodInterceptor<String> {

	private final Supplier<ElectionService> electionService;

	private final Supplier<List<SkippedInvocationListener>> listeners;

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
	Call proceedIfAllowed(MethodInvocation invocation, String election) throws Throwable {
		return this.electionService.get().election(election).isLeader() ? Call.ran(invocation.proceed())
				: Call.SKIPPED;
	}

	@Override
	String skipReason(String election) {
		return "this node does not lead election '" + election + "'";
	}

	@Override
	void skipped(String election, Method method) {
		for (SkippedInvocationListener listener : this.listeners.get()) {
			listener.skipped(election, method);
		}
	}

	@Override
	String settingsOf(Method method, Class<?> targetClass) {
		LeaderOnly annotation = findOnMethod(method, targetClass, LeaderOnly.class);
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

}
