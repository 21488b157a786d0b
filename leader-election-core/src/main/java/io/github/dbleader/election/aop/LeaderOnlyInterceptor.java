package io.github.dbleader.election.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
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
 * <p>
 * A skipped call returns {@code null} for reference types, {@link Optional#empty()} for
 * {@code Optional} and the zero value for primitives ({@code false}, {@code 0},
 * {@code '\0'}).
 *
 * <p>
 * With an {@linkplain #setObservationRegistry observation registry}, each call is one
 * observation, current while the method runs, whose outcome tells a run that completed,
 * failed or was refused by a fence from a skipped call
 * ({@link LeaderElectionObservationDocumentation#LEADER_ONLY_CALL}).
 *
 * <p>
 * The annotation on the method wins over the one on its class; the method is resolved on
 * the target class, so an annotation on an implementation method counts even when the
 * call goes through an interface.
 *
 * <p>
 * Each call, run or skipped, is recorded by {@link LeaderOnlyRuns}.
 */
public class LeaderOnlyInterceptor extends SkippingMethodInterceptor<LeaderOnlyInterceptor.Settings> {

	private final Supplier<ElectionService> electionService;

	private final Supplier<List<SkippedInvocationListener>> listeners;

	private final Supplier<LeaderOnlyRuns> runs;

	private final Function<String, @Nullable Duration> durations;

	private static final LeaderOnlyCallObservationConvention DEFAULT_OBSERVATION_CONVENTION = new DefaultLeaderOnlyCallObservationConvention();

	private Supplier<ObservationRegistry> observationRegistry = () -> ObservationRegistry.NOOP;

	private Supplier<@Nullable LeaderOnlyCallObservationConvention> observationConvention = () -> null;

	/**
	 * Create an interceptor that records the calls in a {@link LeaderOnlyRuns} of its own
	 * and reads {@link LeaderOnly#maxRunTime()} in the ISO-8601 form only. Both suppliers
	 * are called lazily, at the first call that needs them, and only once.
	 * @param electionService supplies the election service
	 * @param listeners supplies the listeners for skipped calls
	 */
	public LeaderOnlyInterceptor(Supplier<ElectionService> electionService,
			Supplier<List<SkippedInvocationListener>> listeners) {
		this(electionService, listeners, LeaderOnlyRuns::new, Duration::parse);
	}

	/**
	 * Create an interceptor. The suppliers are called lazily, at the first call that
	 * needs them, and only once.
	 * @param electionService supplies the election service
	 * @param listeners supplies the listeners for skipped calls
	 * @param runs supplies the record of the calls
	 * @param durations turns {@link LeaderOnly#maxRunTime()} (placeholders included) into
	 * a duration, {@code null} for a text that resolves to nothing
	 */
	public LeaderOnlyInterceptor(Supplier<ElectionService> electionService,
			Supplier<List<SkippedInvocationListener>> listeners, Supplier<LeaderOnlyRuns> runs,
			Function<String, @Nullable Duration> durations) {
		Objects.requireNonNull(electionService, "electionService must not be null");
		Objects.requireNonNull(listeners, "listeners must not be null");
		Objects.requireNonNull(runs, "runs must not be null");
		this.electionService = SingletonSupplier.of(electionService);
		this.listeners = SingletonSupplier.of(listeners);
		this.runs = SingletonSupplier.of(runs);
		this.durations = Objects.requireNonNull(durations, "durations must not be null");
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
	 * @param observationConvention supplies the convention, or {@code null} for the
	 * default one, lazily at the first call, once
	 */
	public void setObservationConvention(
			Supplier<@Nullable LeaderOnlyCallObservationConvention> observationConvention) {
		Objects.requireNonNull(observationConvention, "observationConvention must not be null");
		this.observationConvention = SingletonSupplier.of(observationConvention);
	}

	@Override
	Call proceedIfAllowed(MethodInvocation invocation, Settings settings) throws Throwable {
		String election = settings.election();
		Observation observation = LeaderElectionObservationDocumentation.LEADER_ONLY_CALL
			.observation(this.observationConvention.get(), DEFAULT_OBSERVATION_CONVENTION,
					() -> new LeaderOnlyCallContext(election, targetClass(invocation), invocation.getMethod()),
					this.observationRegistry.get())
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			Call call = proceedIfLeader(invocation, settings);
			outcome(observation,
					call.ran() ? LeaderOnlyCallContext.Outcome.COMPLETED : LeaderOnlyCallContext.Outcome.SKIPPED);
			return call;
		}
		catch (Throwable ex) {
			outcome(observation, LeaderOnlyRuns.refusedByFence(ex) ? LeaderOnlyCallContext.Outcome.REFUSED
					: LeaderOnlyCallContext.Outcome.FAILED);
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	/** The call itself, in its observation, recorded by {@link LeaderOnlyRuns}. */
	private Call proceedIfLeader(MethodInvocation invocation, Settings settings) throws Throwable {
		Election election = this.electionService.get().election(settings.election());
		// The term, not isLeader(): one reading of the belief gives both the answer and
		// the term the run is recorded with.
		long term = election.term();
		if (term < 0) {
			this.runs.get().skipped(settings, election.nodeId());
			return Call.SKIPPED;
		}
		GuardedCall.started(term);
		return Call.ran(this.runs.get().run(settings, election.nodeId(), term, election::term, invocation::proceed));
	}

	/** Where the call is observed (not so with no registry), say what became of it. */
	private static void outcome(Observation observation, LeaderOnlyCallContext.Outcome outcome) {
		if (observation.getContext() instanceof LeaderOnlyCallContext context) {
			context.setOutcome(outcome);
		}
	}

	@Override
	String skipReason(Settings settings) {
		return "this node does not lead election '" + settings.election() + "'";
	}

	@Override
	void skipped(Settings settings, Method method) {
		for (SkippedInvocationListener listener : this.listeners.get()) {
			listener.skipped(settings.election(), method);
		}
	}

	@Override
	Settings settingsOf(Method method, Class<?> targetClass) {
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
		Duration maxRunTime = null;
		if (!annotation.maxRunTime().isEmpty()) {
			try {
				maxRunTime = this.durations.apply(annotation.maxRunTime());
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException("Invalid maxRunTime '" + annotation.maxRunTime()
						+ "' of @LeaderOnly on " + method + ": " + ex.getMessage(), ex);
			}
			if (maxRunTime != null && (maxRunTime.isNegative() || maxRunTime.isZero())) {
				throw new IllegalStateException("maxRunTime '" + annotation.maxRunTime() + "' of @LeaderOnly on "
						+ method + " must be positive");
			}
		}
		return new Settings(annotation.election(), targetClass.getSimpleName() + "." + method.getName(), maxRunTime,
				annotation.interruptOnLoss());
	}

	/**
	 * The settings of a {@code @LeaderOnly} method.
	 *
	 * @param election the election's name
	 * @param method the bean's class (simple name), a dot and the method's name
	 * @param maxRunTime the method's own bound, or {@code null} for the default
	 * @param interruptOnLoss whether to interrupt a run when the leadership is lost
	 */
	record Settings(String election, String method, @Nullable Duration maxRunTime, boolean interruptOnLoss) {
	}

}
