/**
 * The benchmark application of Spring Integration: a scheduled job that runs while
 * {@code LockRegistryLeaderInitiator} on a {@code JdbcLockRegistry} says this node leads.
 */
@NullMarked
package io.github.dbleader.benchmarks.integration;

import org.jspecify.annotations.NullMarked;
