/**
 * The {@code jobs} actuator endpoint: the {@code @LeaderOnly} and {@code @ClusterLock}
 * methods of this node's beans, and an operator's run of one of them now.
 */
@NullMarked
package io.github.dbleader.autoconfigure.jobs;

import org.jspecify.annotations.NullMarked;
