package io.github.dbleader.election;

import java.time.Duration;

/**
 * A lease as this node's heartbeat last read it.
 *
 * @param lease the lease row at the time of the read (its times are the database clock's)
 * @param age how long ago the read returned, on this node's monotonic clock
 */
public record LeaseSighting(LeaseState lease, Duration age) {

}
