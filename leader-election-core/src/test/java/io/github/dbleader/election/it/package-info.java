/**
 * What the election integration tests need around a real database: the
 * {@link io.github.dbleader.election.it.ElectionDatabase} under test, the contending
 * {@link io.github.dbleader.election.it.ElectionNode}s, and the
 * {@link io.github.dbleader.election.it.BeliefSampler} that watches who believes it
 * leads. The TCP proxy that cuts a node off comes from the shared test rig.
 */
@NullMarked
package io.github.dbleader.election.it;

import org.jspecify.annotations.NullMarked;
