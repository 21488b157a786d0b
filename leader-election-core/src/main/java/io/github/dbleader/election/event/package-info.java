/**
 * Leadership changes, and the partitions of partition groups this node gains and loses,
 * as Spring {@link org.springframework.context.ApplicationEvent}s, for
 * {@code @EventListener} methods, and as Micrometer observations
 * ({@link io.github.dbleader.election.event.ObservationLeadershipListener}). Depends on
 * spring-context and micrometer-observation only, not on Spring Boot.
 */
@NullMarked
package io.github.dbleader.election.event;

import org.jspecify.annotations.NullMarked;
