/**
 * Election core: lease-based leader election whose only shared state is a row in the
 * application's database. Nothing here imports Spring Boot.
 *
 * <p>
 * Start with {@link io.github.dbleader.election.ElectionService}, ask it for an
 * {@link io.github.dbleader.election.Election} by name, and call
 * {@link io.github.dbleader.election.Election#isLeader()}.
 *
 * <p>
 * Comments cite the election's safety invariants as I1 to I10: they are stated, each with
 * a sketch of why the code keeps it, in {@code docs/explanation/invariants.md}.
 */
@NullMarked
package io.github.dbleader.election;

import org.jspecify.annotations.NullMarked;
