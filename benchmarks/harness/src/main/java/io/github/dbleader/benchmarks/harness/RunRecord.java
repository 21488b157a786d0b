package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything one run measured and the circumstances it was measured in.
 *
 * @param settings the run's settings
 * @param command the command that ran it
 * @param startedAt when the run started
 * @param runtime how long it took, waiting for a quiet machine included
 * @param waitedForQuiet how long it waited for a quiet machine
 * @param loadBefore load averages (1, 5, 15 min) when the measurements started
 * @param loadAfter load averages when they ended
 * @param versions component versions by name
 * @param microbenchmarks the JMH results, empty if not run
 * @param systems each system's results
 */
record RunRecord(RunSettings settings, String command, Instant startedAt, Duration runtime, Duration waitedForQuiet,
		List<Double> loadBefore, List<Double> loadAfter, Map<String, String> versions,
		List<Microbenchmarks.Result> microbenchmarks, List<SystemResults> systems) {
}
