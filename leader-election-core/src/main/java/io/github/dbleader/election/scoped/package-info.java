/**
 * Leader-scoped services: work that an application runs on this node only while it leads
 * an election or owns a partition, such as a consumer loop that only the leader may run.
 * The application implements
 * {@link io.github.dbleader.election.scoped.LeaderScopedService};
 * {@link io.github.dbleader.election.scoped.LeaderScopedServices} starts each on a thread
 * of its own when leadership is granted, with a
 * {@link io.github.dbleader.election.scoped.LeadershipContext} carrying the term and a
 * cancellation signal, and stops it when leadership ends.
 */
@NullMarked
package io.github.dbleader.election.scoped;

import org.jspecify.annotations.NullMarked;
