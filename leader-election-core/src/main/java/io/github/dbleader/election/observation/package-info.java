/**
 * Micrometer observations of the election's work: {@code @LeaderOnly} calls, cluster lock
 * calls, fenced transactions and changes of leadership. Each has a context, a convention
 * interface to implement for names and key values of one's own, and a default convention;
 * {@link io.github.dbleader.election.observation.LeaderElectionObservationDocumentation}
 * lists them. Nothing is observed until an {@code ObservationRegistry} is set (the Spring
 * Boot auto-configuration sets the application's). Depends on no Spring Boot and on no
 * other package of the election, so every package can use it.
 */
@NullMarked
package io.github.dbleader.election.observation;

import org.jspecify.annotations.NullMarked;
