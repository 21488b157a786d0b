/**
 * Test support for applications that use leader election: put this node in a chosen role
 * per election or cluster lock in a Spring Boot test, with
 * {@link io.github.dbleader.autoconfigure.test.AutoConfigureLeaderElectionTest @AutoConfigureLeaderElectionTest}
 * and {@link io.github.dbleader.autoconfigure.test.LeaderElectionTestControl}.
 */
@NullMarked
package io.github.dbleader.autoconfigure.test;

import org.jspecify.annotations.NullMarked;
