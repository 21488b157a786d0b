package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Passes every callback to each listener in order; a failing listener does not keep the
 * others from being told.
 */
final class CompositeLeadershipListener implements LeadershipListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositeLeadershipListener.class);

	private final List<LeadershipListener> listeners;

	CompositeLeadershipListener(List<LeadershipListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		each((listener) -> listener.granted(election, nodeId, term));
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		each((listener) -> listener.revoked(election, nodeId, term, reason));
	}

	@Override
	public void leaderChanged(String election, @Nullable String previousLeader, @Nullable String newLeader, long term) {
		each((listener) -> listener.leaderChanged(election, previousLeader, newLeader, term));
	}

	@Override
	public void heartbeat(String nodeId, int elections, boolean succeeded, Duration duration) {
		each((listener) -> listener.heartbeat(nodeId, elections, succeeded, duration));
	}

	private void each(java.util.function.Consumer<LeadershipListener> callback) {
		for (LeadershipListener listener : this.listeners) {
			try {
				callback.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Leadership listener " + listener + " failed", ex);
			}
		}
	}

}
