/**
 * A ShedLock {@code LockProvider} over the starter's cluster locks: database time, a
 * fencing token per run, fenced transactions and extension for {@code @SchedulerLock}
 * methods.
 */
@NullMarked
package io.github.dbleader.shedlock;

import org.jspecify.annotations.NullMarked;
