/**
 * Auto-configuration of the ShedLock {@code LockProvider} over the cluster locks.
 */
@NullMarked
package io.github.dbleader.shedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
