/**
 * The benchmark application of this starter: a {@code @LeaderOnly} scheduled job that
 * records each run in a fenced transaction.
 */
@NullMarked
package io.github.dbleader.benchmarks.ours;

import org.jspecify.annotations.NullMarked;
