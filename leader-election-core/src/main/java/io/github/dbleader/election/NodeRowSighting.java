package io.github.dbleader.election;

/**
 * The row of a node id that another running instance holds, as a read found it
 * ({@link LeaseRepository#nodeRow}). An instance whose id another holds watches the row's
 * version: only a version it has seen unchanged for a whole lease on its own clock may be
 * taken over ({@link LeaseRepository#heartbeat}), whatever the database clock says, as a
 * follower takes a lease over (I3).
 *
 * @param version the row's version, which every heartbeat of its instance moves on
 * @param stale whether the row's last heartbeat is older than a lease on the database
 * clock: its instance stopped, or is paused, rather than running
 */
public record NodeRowSighting(long version, boolean stale) {

}
