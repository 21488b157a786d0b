package io.github.dbleader.election.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.observation.DefaultLeaderOnlyCallObservationConvention;
import io.github.dbleader.election.observation.LeaderElectionObservationDocumentation;
import io.github.dbleader.election.observation.LeaderOnlyCallContext;
import io.github.dbleader.election.observation.LeaderOnlyCallObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

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
 * <p>With an {@linkplain #setObservationRegistry observation registry}, each call is one
 * observation, current while the method runs, whose outcome tells a run that completed,
 * failed or was refused by a fence from a skipped call
 * ({@link LeaderElectionObservationDocumentation#LEADER_ONLY_CALL}).
 *
 * <p>The annotation on the method wins over the one on its class; the method is resolved
 * on the target class, so an annotation on an implementation method counts even when the
 * call goes through an interface.
 */
public class LeaderOnlyInterceptor extends SkippingMethodInterceptor<String> {

	private final Supplier<ElectionService> electionService;

	private final Supplier<List<SkippedInvocationListener>> listeners;

	private static final LeaderOnlyCallObservationConvention DEFAULT_OBSERVATION_CONVENTION = new DefaultLeaderOnlyCallObservationConvention();

	private Supplier<ObservationRegistry> observationRegistry = () -> ObservationRegistry.NOOP;

	private Supplier<@Nullable LeaderOnlyCallObservationConvention> observationConvention = () -> null;

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

	/**
	 * Observe the calls in this registry.
	 * @param observationRegistry supplies the registry, lazily at the first call, once
	 */
	public void setObservationRegistry(Supplier<ObservationRegistry> observationRegistry) {
		Objects.requireNonNull(observationRegistry, "observationRegistry must not be null");
		this.observationRegistry = SingletonSupplier.of(observationRegistry);
	}

	/**
	 * Name the observations of the calls, and give them key values, by this convention
	 * rather than the default one.
	 * @param observationConvention supplies the convention, or {@code null} for the default
	 * one, lazily at the first call, once
	 */
	public void setObservationConvention(
			Supplier<@Nullable LeaderOnlyCallObservationConvention> observationConvention) {
		Objects.requireNonNull(observationConvention, "observationConvention must not be null");
		this.observationConvention = SingletonSupplier.of(observationConvention);
	}

	@Override
	Call proceedIfAllowed(MethodInvocation invocation, String election) throws Throwable {
		Observation observation = LeaderElectionObservationDocumentation.LEADER_ONLY_CALL
			.observation(this.observationConvention.get(), DEFAULT_OBSERVATION_CONVENTION,
					() -> new LeaderOnlyCallContext(election, targetClass(invocation), invocation.getMethod()),
					this.observationRegistry.get())
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			Call call = proceedIfLeader(invocation, election);
			outcome(observation, call.ran() ? LeaderOnlyCallContext.Outcome.COMPLETED
					: LeaderOnlyCallContext.Outcome.SKIPPED);
			return call;
		}
		catch (Throwable ex) {
			outcome(observation, (ex instanceof NotLeaderException) ? LeaderOnlyCallContext.Outcome.REFUSED
					: LeaderOnlyCallContext.Outcome.FAILED);
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	/** The call itself, in its observation. */
	private Call proceedIfLeader(MethodInvocation invocation, String election) throws Throwable {
		return this.electionService.get().election(election).isLeader() ? Call.ran(invocation.proceed())
				: Call.SKIPPED;
	}

	/** Where the call is observed (not so with no registry), say what became of it. */
	private static void outcome(Observation observation, LeaderOnlyCallContext.Outcome outcome) {
		if (observation.getContext() instanceof LeaderOnlyCallContext context) {
			context.setOutcome(outcome);
		}
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
