package io.github.dbleader.election;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Who leads an election, as the database says, and what this node believes.
 *
 * @param election election name
 * @param leaderId current leader, or {@code null} if none
 * @param term fencing token of the current (or last) leader; 0 if the election never had
 * one
 * @param acquiredAt when the leader acquired the lease
 * @param renewedAt when the leader last renewed it
 * @param expiresAt when the lease expires unless renewed
 * @param handoverTo node that leadership is being handed over to, if a hand-over is
 * pending
 * @param reelectionPending whether a re-election is pending
 * @param thisNodeLeads whether this node believes it leads, right now
 */
public record LeaderInfo(String election, @Nullable String leaderId, long term, @Nullable Instant acquiredAt,
		@Nullable Instant renewedAt, @Nullable Instant expiresAt, @Nullable String handoverTo,
		boolean reelectionPending, boolean thisNodeLeads) {

	static LeaderInfo of(LeaseState state, boolean thisNodeLeads) {
		return new LeaderInfo(state.election(), state.leaderId(), state.term(), state.acquiredAt(), state.renewedAt(),
				state.expiresAt(), state.handoverTo(), state.reelectionRequested(), thisNodeLeads);
	}

	static LeaderInfo none(String election) {
		return new LeaderInfo(election, null, 0, null, null, null, null, false, false);
	}

}
