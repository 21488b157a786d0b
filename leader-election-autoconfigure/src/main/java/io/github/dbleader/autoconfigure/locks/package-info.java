/**
 * The {@code locks} actuator endpoint: the cluster locks, their runs on this node, and an
 * operator's release of a stuck lock.
 */
@NullMarked
package io.github.dbleader.autoconfigure.locks;

import org.jspecify.annotations.NullMarked;
