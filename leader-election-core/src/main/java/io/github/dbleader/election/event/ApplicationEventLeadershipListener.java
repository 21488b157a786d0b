package io.github.dbleader.election.event;

import java.util.Objects;

import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * {@link LeadershipListener} that publishes each change as a {@link LeadershipEvent}. The
 * election service calls it on its own notification thread, never on the heartbeat
 * thread, so synchronous {@code @EventListener} methods cannot delay a renewal; they do
 * delay the events after them, so hand long work to an executor.
 */
public class ApplicationEventLeadershipListener implements LeadershipListener {

	private final ApplicationEventPublisher publisher;

	/**
	 * Create a listener.
	 * @param publisher where to publish the events
	 */
	public ApplicationEventLeadershipListener(ApplicationEventPublisher publisher) {
		this.publisher = Objects.requireNonNull(publisher, "publisher must not be null");
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		this.publisher.publishEvent(new LeadershipGrantedEvent(this, election, nodeId, term));
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		this.publisher.publishEvent(new LeadershipRevokedEvent(this, election, nodeId, term, reason));
	}

	@Override
	public void leaderChanged(String election, @Nullable String previousLeader, @Nullable String newLeader, long term) {
		this.publisher.publishEvent(new LeaderChangedEvent(this, election, previousLeader, newLeader, term));
	}

}
