/**
 * What the three benchmark applications share: their settings and the table they record
 * each job run in, so that runs of every system are measured the same way.
 */
@NullMarked
package io.github.dbleader.benchmarks.jobruns;

import org.jspecify.annotations.NullMarked;
