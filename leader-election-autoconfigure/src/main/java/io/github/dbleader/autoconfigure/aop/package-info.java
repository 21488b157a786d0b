/**
 * Auto-configuration of {@link io.github.dbleader.election.aop.LeaderOnly @LeaderOnly}.
 */
@NullMarked
package io.github.dbleader.autoconfigure.aop;

import org.jspecify.annotations.NullMarked;
