/**
 * JMH microbenchmarks of the leadership check: {@code Election.isLeader()} and a
 * {@code @LeaderOnly} call through a Spring AOP proxy, against a plain call.
 */
@NullMarked
package io.github.dbleader.benchmarks.jmh;

import org.jspecify.annotations.NullMarked;
