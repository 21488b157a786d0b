package io.github.dbleader.election;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What a follower watched of a lease for a whole lease before it takes the lease over
 * (invariants.md I3): the lease row's version, and the version of its holder's session,
 * the node row that the holder's heartbeat refreshes and that keeps the lease alive. A
 * take-over is applied only if both are still what was watched.
 *
 * @param version the lease row's version, or -1 to take only a vacant lease
 * @param holder the holder the follower saw, or {@code null} for a vacant lease
 * @param holderVersion the version of the holder's session as seen, or -1 if the lease
 * had no session (vacant, or its holder's node row gone)
 * @param sessionEnded whether that session had ended, another instance having taken the
 * node id over: the version is then its last, which nothing can move on any more
 */
public record LeaseObservation(long version, @Nullable String holder, long holderVersion, boolean sessionEnded) {

	/**
	 * A vacant lease: taken only if it is still vacant.
	 * @return the observation
	 */
	public static LeaseObservation vacant() {
		return new LeaseObservation(-1, null, -1, false);
	}

	/**
	 * What a read of the lease shows.
	 * @param state the lease as read
	 * @return the observation
	 */
	public static LeaseObservation of(LeaseState state) {
		return new LeaseObservation(state.version(), state.leaderId(), state.holderVersion(), state.sessionEnded());
	}

	/**
	 * Whether this and another observation saw the same lease row and the same session
	 * version: a session that ended since at the version watched is the same session,
	 * which nothing renewed meanwhile.
	 * @param other the other observation
	 * @return {@code true} if nothing moved
	 */
	public boolean unchangedSince(LeaseObservation other) {
		return this.version == other.version && Objects.equals(this.holder, other.holder)
				&& this.holderVersion == other.holderVersion;
	}

}
