package io.github.dbleader.autoconfigure.partition;

import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.partition.PartitionGroups;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The election service's listener for partition elections: passes their callbacks on to
 * the {@link PartitionGroups} bean, looked up at the first callback. The registry cannot
 * be the service's listener itself, since it needs the service to create its groups.
 */
final class PartitionLeadershipForwarder implements LeadershipListener {

	private final ObjectProvider<PartitionGroups> groups;

	PartitionLeadershipForwarder(ObjectProvider<PartitionGroups> groups) {
		this.groups = groups;
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		PartitionGroups registry = this.groups.getIfAvailable();
		if (registry != null) {
			registry.leadershipListener().granted(election, nodeId, term);
		}
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		PartitionGroups registry = this.groups.getIfAvailable();
		if (registry != null) {
			registry.leadershipListener().revoked(election, nodeId, term, reason);
		}
	}

}
