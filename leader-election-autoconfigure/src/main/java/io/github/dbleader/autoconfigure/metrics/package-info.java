/**
 * Micrometer meters of the elections.
 */
@NullMarked
package io.github.dbleader.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
