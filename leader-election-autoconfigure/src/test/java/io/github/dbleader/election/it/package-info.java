/**
 * What the election integration tests need around a real database: a
 * {@link io.github.dbleader.election.it.TcpProxy} to cut a node off from it, the
 * {@link io.github.dbleader.election.it.ElectionDatabase} under test, the contending
 * {@link io.github.dbleader.election.it.ElectionNode}s, and the
 * {@link io.github.dbleader.election.it.BeliefSampler} that watches who believes it leads.
 */
@NullMarked
package io.github.dbleader.election.it;

import org.jspecify.annotations.NullMarked;
