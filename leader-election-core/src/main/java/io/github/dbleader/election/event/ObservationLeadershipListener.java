package io.github.dbleader.election.event;

import java.util.Objects;

import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.observation.DefaultLeadershipChangeObservationConvention;
import io.github.dbleader.election.observation.LeaderElectionObservationDocumentation;
import io.github.dbleader.election.observation.LeadershipChangeContext;
import io.github.dbleader.election.observation.LeadershipChangeObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * {@link LeadershipListener} that records each grant and revocation of this node's
 * leadership as a short observation
 * ({@link LeaderElectionObservationDocumentation#LEADERSHIP_CHANGE}): a span of its own
 * where tracing is on, a count per election, change and reason where metrics are. Like
 * every listener it hears of a change on the service's notification thread, after the
 * fact.
 */
public class ObservationLeadershipListener implements LeadershipListener {

	private static final LeadershipChangeObservationConvention DEFAULT_CONVENTION = new DefaultLeadershipChangeObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable LeadershipChangeObservationConvention convention;

	/**
	 * Create a listener.
	 * @param registry where to observe the changes
	 * @param convention the names and key values, or {@code null} for
	 * {@link DefaultLeadershipChangeObservationConvention}
	 */
	public ObservationLeadershipListener(ObservationRegistry registry,
			@Nullable LeadershipChangeObservationConvention convention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		observe(new LeadershipChangeContext(election, LeadershipChangeContext.Change.GRANTED, nodeId, term, null));
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		observe(new LeadershipChangeContext(election, LeadershipChangeContext.Change.REVOKED, nodeId, term,
				reason.name()));
	}

	private void observe(LeadershipChangeContext context) {
		LeaderElectionObservationDocumentation.LEADERSHIP_CHANGE
			.observation(this.convention, DEFAULT_CONVENTION, () -> context, this.registry)
			.start()
			.stop();
	}

}
