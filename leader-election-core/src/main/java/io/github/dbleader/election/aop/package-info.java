/**
 * {@link io.github.dbleader.election.aop.LeaderOnly @LeaderOnly}: run a method only on
 * the node that leads an election, and
 * {@link io.github.dbleader.election.aop.ClusterLock @ClusterLock}: run each call on
 * whichever node takes a cluster lock, through Spring AOP advisors (no AspectJ weaver).
 * Depends on spring-aop only, not on Spring Boot.
 */
@NullMarked
package io.github.dbleader.election.aop;

import org.jspecify.annotations.NullMarked;
