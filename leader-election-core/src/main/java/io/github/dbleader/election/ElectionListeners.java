package io.github.dbleader.election;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one election: the service's, which hears every election, then the one
 * the election was joined with. A failure of the first does not keep the second from
 * hearing of the change.
 */
final class ElectionListeners implements LeadershipListener {

	private static final Logger logger = LoggerFactory.getLogger(ElectionListeners.class);

	private final LeadershipListener service;

	private final LeadershipListener election;

	ElectionListeners(LeadershipListener service, LeadershipListener election) {
		this.service = service;
		this.election = election;
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		both(() -> this.service.granted(election, nodeId, term), () -> this.election.granted(election, nodeId, term));
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		both(() -> this.service.revoked(election, nodeId, term, reason),
				() -> this.election.revoked(election, nodeId, term, reason));
	}

	@Override
	public void leaderChanged(String election, @Nullable String previousLeader, @Nullable String newLeader, long term) {
		both(() -> this.service.leaderChanged(election, previousLeader, newLeader, term),
				() -> this.election.leaderChanged(election, previousLeader, newLeader, term));
	}

	private static void both(Runnable service, Runnable election) {
		try {
			service.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Leadership listener failed", ex);
		}
		election.run();
	}

}
