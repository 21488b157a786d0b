/**
 * Leadership changes as Spring {@link org.springframework.context.ApplicationEvent}s, for
 * {@code @EventListener} methods. Depends on spring-context only, not on Spring Boot.
 */
@NullMarked
package io.github.dbleader.election.event;

import org.jspecify.annotations.NullMarked;
