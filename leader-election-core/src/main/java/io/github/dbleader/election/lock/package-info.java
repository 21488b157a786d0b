/**
 * Cluster locks: run one piece of work on exactly one node at a time, whichever node is
 * free, with no standing leader ({@link io.github.dbleader.election.lock.ClusterLocks}).
 * A lock is a row of the lease table that nobody renews; its term is a fencing token like
 * an election's. Depends on no Spring Boot.
 */
@NullMarked
package io.github.dbleader.election.lock;

import org.jspecify.annotations.NullMarked;
