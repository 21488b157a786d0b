/**
 * The benchmark harness: starts the benchmark applications as processes on one MariaDB
 * database, measures failover, pauses and database cost for each system in turn, runs the
 * JMH microbenchmarks, and writes {@code RESULTS.md} with an SVG chart.
 */
package io.github.dbleader.benchmarks.harness;
