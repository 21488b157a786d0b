package io.github.dbleader.election.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.dbleader.election.ElectionNames;
import io.github.dbleader.election.lock.ClusterLocks;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link ClusterLock @ClusterLock} method only if this node takes the lock, and
 * releases it afterwards or lets it expire, as the annotation says. A call that does not
 * get the lock (another node holds it, or the database failed) is skipped and logged at
 * debug level.
 */
public class ClusterLockInterceptor extends SkippingMethodInterceptor<ClusterLockInterceptor.Settings> {

	private final Supplier<ClusterLocks> clusterLocks;

	private final Function<String, @Nullable Duration> durations;

	/**
	 * Create an interceptor.
	 * @param clusterLocks supplies the cluster locks, lazily at the first call, once
	 * @param durations turns the annotation's durations (placeholders included) into
	 * durations, {@code null} for a text that resolves to nothing
	 */
	public ClusterLockInterceptor(Supplier<ClusterLocks> clusterLocks, Function<String, @Nullable Duration> durations) {
		Objects.requireNonNull(clusterLocks, "clusterLocks must not be null");
		this.clusterLocks = SingletonSupplier.of(clusterLocks);
		this.durations = Objects.requireNonNull(durations, "durations must not be null");
	}

	@Override
	Call proceedIfAllowed(MethodInvocation invocation, Settings settings) throws Throwable {
		Object[] result = new Object[1];
		Throwable[] failure = new Throwable[1];
		boolean ran = this.clusterLocks.get()
			.runLocked(settings.name(), settings.permits(), settings.atMostFor(), settings.atLeastFor(),
					settings.release(), (lock) -> {
						GuardedCall.started(lock.term());
						if (settings.maxFor() != null) {
							lock.keepAlive(settings.maxFor());
							if (settings.interruptOnLoss()) {
								Thread run = Thread.currentThread();
								lock.onLost(run::interrupt);
							}
						}
						try {
							result[0] = invocation.proceed();
						}
						catch (Throwable ex) {
							failure[0] = ex;
						}
					});
		if (failure[0] != null) {
			throw failure[0];
		}
		return ran ? Call.ran(result[0]) : Call.SKIPPED;
	}

	@Override
	String skipReason(Settings settings) {
		return (settings.permits() == 1) ? "lock '" + settings.name() + "' is held elsewhere"
				: "every permit of lock '" + settings.name() + "' is held";
	}

	@Override
	Settings settingsOf(Method method, Class<?> targetClass) {
		ClusterLock annotation = findOnMethod(method, targetClass, ClusterLock.class);
		if (annotation == null) {
			throw new IllegalStateException("No @ClusterLock found on " + method);
		}
		String name = annotation.name().isEmpty() ? targetClass.getSimpleName() + "." + method.getName()
				: annotation.name();
		ElectionNames.permitKeys(name, annotation.permits());
		Duration maxFor = annotation.maxFor().isEmpty() ? null
				: optionalDuration(annotation.maxFor(), "maxFor", method);
		if (annotation.interruptOnLoss() && maxFor == null) {
			throw new IllegalStateException("interruptOnLoss of @ClusterLock on " + method + " needs maxFor:"
					+ " only a kept-alive lock is watched for its loss");
		}
		return new Settings(name, annotation.permits(), duration(annotation.atMostFor(), "atMostFor", method),
				duration(annotation.atLeastFor(), "atLeastFor", method),
				annotation.mode() == ClusterLock.Mode.RELEASE_AFTER_RUN, maxFor, annotation.interruptOnLoss());
	}

	private Duration duration(String text, String attribute, Method method) {
		Duration duration = optionalDuration(text, attribute, method);
		if (duration == null) {
			throw new IllegalStateException("Empty " + attribute + " '" + text + "' of @ClusterLock on " + method);
		}
		return duration;
	}

	/**
	 * A duration, or {@code null} where the text resolves to nothing (a placeholder's
	 * empty default).
	 */
	private @Nullable Duration optionalDuration(String text, String attribute, Method method) {
		try {
			return this.durations.apply(text);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException(
					"Invalid " + attribute + " '" + text + "' of @ClusterLock on " + method + ": " + ex.getMessage(),
					ex);
		}
	}

	record Settings(String name, int permits, Duration atMostFor, Duration atLeastFor, boolean release,
			@Nullable Duration maxFor, boolean interruptOnLoss) {
	}

}
