/**
 * The guarded jobs of this node's beans ({@code @LeaderOnly} and {@code @ClusterLock}
 * methods), found without Spring Boot; the {@code jobs} endpoint lists them.
 */
@NullMarked
package io.github.dbleader.autoconfigure.jobs;

import org.jspecify.annotations.NullMarked;
