/**
 * {@link io.github.dbleader.election.aop.LeaderOnly @LeaderOnly}: run a method only on the
 * node that leads an election, through a Spring AOP advisor (no AspectJ weaver). Depends
 * on spring-aop only, not on Spring Boot.
 */
@NullMarked
package io.github.dbleader.election.aop;

import org.jspecify.annotations.NullMarked;
