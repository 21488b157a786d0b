/**
 * The Micrometer meters of the elections and the cluster locks, bound by either Spring
 * Boot line's metrics auto-configuration.
 */
@NullMarked
package io.github.dbleader.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
