package io.github.dbleader.election.observation;

import java.util.Objects;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Where the fenced transactions of an election service, or of cluster locks, are
 * observed: a registry and a convention. Each transaction is one observation
 * ({@link LeaderElectionObservationDocumentation#FENCED_TRANSACTION}), current while the
 * work runs, so that the work's own observations (its JDBC statements, say) are its
 * children.
 */
public final class FencedTransactionObservation {

	/** Observes nothing. */
	public static final FencedTransactionObservation NONE = new FencedTransactionObservation(ObservationRegistry.NOOP,
			null);

	private static final FencedTransactionObservationConvention DEFAULT_CONVENTION = new DefaultFencedTransactionObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable FencedTransactionObservationConvention convention;

	/**
	 * Observe fenced transactions.
	 * @param registry where to
	 * @param convention the names and key values, or {@code null} for
	 * {@link DefaultFencedTransactionObservationConvention}
	 */
	public FencedTransactionObservation(ObservationRegistry registry,
			@Nullable FencedTransactionObservationConvention convention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	/**
	 * Observe in another registry.
	 * @param registry the registry
	 * @return this observation with that registry
	 */
	public FencedTransactionObservation withRegistry(ObservationRegistry registry) {
		return new FencedTransactionObservation(registry, this.convention);
	}

	/**
	 * Observe with another convention.
	 * @param convention the convention, or {@code null} for the default one
	 * @return this observation with that convention
	 */
	public FencedTransactionObservation withConvention(@Nullable FencedTransactionObservationConvention convention) {
		return new FencedTransactionObservation(this.registry, convention);
	}

	/**
	 * Run a fenced transaction in an observation.
	 * @param <T> the result type
	 * @param election the election whose fence the transaction passes, or the lease row
	 * of a cluster lock
	 * @param term the term it runs for, or -1 if none
	 * @param refusal the type of exception that says that the fence, or this node itself,
	 * refused the transaction
	 * @param transaction the transaction, fence included
	 * @return what the transaction returned
	 */
	public <T extends @Nullable Object> T observe(String election, long term, Class<? extends RuntimeException> refusal,
			Supplier<T> transaction) {
		FencedTransactionContext context = new FencedTransactionContext(election, term);
		Observation observation = LeaderElectionObservationDocumentation.FENCED_TRANSACTION.observation(this.convention,
				DEFAULT_CONVENTION, () -> context, this.registry);
		return observation.observe(() -> {
			try {
				T result = transaction.get();
				context.setOutcome(FencedTransactionContext.Outcome.COMMITTED);
				return result;
			}
			catch (RuntimeException | Error ex) {
				context.setOutcome(refusal.isInstance(ex) ? FencedTransactionContext.Outcome.REFUSED
						: FencedTransactionContext.Outcome.FAILED);
				throw ex;
			}
		});
	}

}
