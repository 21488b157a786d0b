/**
 * Election core: lease-based leader election whose only shared state is a row in the
 * application's database. Nothing here imports Spring Boot.
 *
 * <p>Start with {@link io.github.dbleader.election.ElectionService}, ask it for an
 * {@link io.github.dbleader.election.Election} by name, and call
 * {@link io.github.dbleader.election.Election#isLeader()}.
 */
@NullMarked
package io.github.dbleader.election;

import org.jspecify.annotations.NullMarked;
