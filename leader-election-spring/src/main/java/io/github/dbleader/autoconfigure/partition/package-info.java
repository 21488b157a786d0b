/**
 * Partition groups' lifecycle in an application context, independent of Spring Boot
 * (their events are the core's, in {@code io.github.dbleader.election.event}).
 */
@NullMarked
package io.github.dbleader.autoconfigure.partition;

import org.jspecify.annotations.NullMarked;
