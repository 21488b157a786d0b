package io.github.dbleader.election;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The lease row of one election as read from the database. Times are the database
 * clock's, in UTC.
 *
 * @param election election name
 * @param leaderId current leader, or {@code null} if the lease is vacant
 * @param term fencing token of the current (or last) holder
 * @param version changes on every write to the row
 * @param acquiredAt when the current holder acquired the lease
 * @param renewedAt when the current holder last renewed it (its session's last refresh)
 * @param expiresAt when the lease expires unless renewed (its session's expiry, while the
 * lease has a session that lasts longer than the lease itself)
 * @param handoverTo node that leadership was asked to move to, if any
 * @param reelectionRequested whether a re-election was asked for
 * @param yieldedBy the node that last gave the lease up on request, if any
 * @param expired whether the lease has expired by the database clock at the time of the
 * read
 * @param sameServer whether the row was last acquired on the database server that
 * answered this read
 * @param databaseTime the database clock at the time of the read
 * @param holderVersion the version of the holder's session as read: the node row that the
 * holder's heartbeat refreshes every renew interval, which keeps the lease alive while it
 * is fresh; once another process took the node id over, the version at which the
 * acquiring process's session ended ({@code sessionEnded}); -1 if the lease has none
 * (vacant, or its node row is gone)
 * @param sessionEnded whether the session the lease lived on ended because another
 * running instance took the node id over: the earlier one can renew it no more
 * @param server the identity of the server that answered the read, where the repository
 * knows it ({@code null} otherwise): a node that reads from another server than before
 * saw the database fail over
 * @param holderRank the rank of the holder's running instance
 * ({@link ElectionService#setRank(String)}), read with its session; {@code null} where
 * the lease has no live session or the repository keeps no ranks
 */
public record LeaseState(String election, @Nullable String leaderId, long term, long version,
		@Nullable Instant acquiredAt, @Nullable Instant renewedAt, Instant expiresAt, @Nullable String handoverTo,
		boolean reelectionRequested, @Nullable String yieldedBy, boolean expired, boolean sameServer,
		Instant databaseTime, long holderVersion, boolean sessionEnded, @Nullable String server,
		@Nullable String holderRank) {

	/**
	 * A lease read with its holder's session, from a repository that keeps no ranks.
	 * @param election election name
	 * @param leaderId current leader, or {@code null} if the lease is vacant
	 * @param term fencing token of the current (or last) holder
	 * @param version changes on every write to the row
	 * @param acquiredAt when the current holder acquired the lease
	 * @param renewedAt when the current holder last renewed it
	 * @param expiresAt when the lease expires unless renewed
	 * @param handoverTo node that leadership was asked to move to, if any
	 * @param reelectionRequested whether a re-election was asked for
	 * @param yieldedBy the node that last gave the lease up on request, if any
	 * @param expired whether the lease has expired by the database clock at the time of
	 * the read
	 * @param sameServer whether the row was last acquired on the database server that
	 * answered this read
	 * @param databaseTime the database clock at the time of the read
	 * @param holderVersion the version of the holder's session as read, or -1
	 * @param sessionEnded whether the session the lease lived on ended
	 * @param server the identity of the server that answered the read, or {@code null}
	 */
	public LeaseState(String election, @Nullable String leaderId, long term, long version, @Nullable Instant acquiredAt,
			@Nullable Instant renewedAt, Instant expiresAt, @Nullable String handoverTo, boolean reelectionRequested,
			@Nullable String yieldedBy, boolean expired, boolean sameServer, Instant databaseTime, long holderVersion,
			boolean sessionEnded, @Nullable String server) {
		this(election, leaderId, term, version, acquiredAt, renewedAt, expiresAt, handoverTo, reelectionRequested,
				yieldedBy, expired, sameServer, databaseTime, holderVersion, sessionEnded, server, null);
	}

	/**
	 * A lease read from a server whose identity the repository does not tell.
	 * @param election election name
	 * @param leaderId current leader, or {@code null} if the lease is vacant
	 * @param term fencing token of the current (or last) holder
	 * @param version changes on every write to the row
	 * @param acquiredAt when the current holder acquired the lease
	 * @param renewedAt when the current holder last renewed it
	 * @param expiresAt when the lease expires unless renewed
	 * @param handoverTo node that leadership was asked to move to, if any
	 * @param reelectionRequested whether a re-election was asked for
	 * @param yieldedBy the node that last gave the lease up on request, if any
	 * @param expired whether the lease has expired by the database clock at the time of
	 * the read
	 * @param sameServer whether the row was last acquired on the database server that
	 * answered this read
	 * @param databaseTime the database clock at the time of the read
	 * @param holderVersion the version of the holder's session as read, or -1
	 * @param sessionEnded whether the session the lease lived on ended
	 */
	public LeaseState(String election, @Nullable String leaderId, long term, long version, @Nullable Instant acquiredAt,
			@Nullable Instant renewedAt, Instant expiresAt, @Nullable String handoverTo, boolean reelectionRequested,
			@Nullable String yieldedBy, boolean expired, boolean sameServer, Instant databaseTime, long holderVersion,
			boolean sessionEnded) {
		this(election, leaderId, term, version, acquiredAt, renewedAt, expiresAt, handoverTo, reelectionRequested,
				yieldedBy, expired, sameServer, databaseTime, holderVersion, sessionEnded, null, null);
	}

	/**
	 * Whether nobody holds the lease.
	 * @return {@code true} if vacant
	 */
	public boolean vacant() {
		return this.leaderId == null;
	}

}
