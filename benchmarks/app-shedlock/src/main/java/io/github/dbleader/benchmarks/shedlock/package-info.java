/**
 * The benchmark application of ShedLock: a scheduled job with {@code @SchedulerLock} on a
 * {@code JdbcTemplateLockProvider} that uses the database time.
 */
@NullMarked
package io.github.dbleader.benchmarks.shedlock;

import org.jspecify.annotations.NullMarked;
