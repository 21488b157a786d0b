/**
 * The parts of the election's Spring integration that need no Spring Boot: the lifecycle
 * of the election service, the node id, the composite listeners, the fenced-transaction
 * and property errors and the {@code @LeaderElectionDataSource} qualifier. Both Spring
 * Boot lines' auto-configurations (same package) wire them.
 */
@NullMarked
package io.github.dbleader.autoconfigure;

import org.jspecify.annotations.NullMarked;
