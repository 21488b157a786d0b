/**
 * ShedLock's annotations on this starter's provider: a {@code @SchedulerLock} job with no
 * {@code @ClusterLock} and no {@code LockProvider} bean of its own, which records each
 * run in a transaction fenced by the run's lock through {@code SchedulerLockContext}.
 */
@NullMarked
package io.github.dbleader.benchmarks.shedlockprovider;

import org.jspecify.annotations.NullMarked;
