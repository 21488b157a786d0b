package io.github.dbleader.benchmarks.harness;

/**
 * What the load benchmark saw for one system ({@link SystemBenchmark#runUnderLoad}).
 *
 * @param system the system
 * @param baselineSeconds length of the quiet window before the load
 * @param baselineRuns job runs that started in it
 * @param loadSeconds length of the load
 * @param loadRuns job runs that started under it
 * @param tailSeconds length of the window after the load
 * @param tailRuns job runs that started in it
 * @param heavyQueries CPU-heavy queries the load completed
 * @param holderChanges changes of holder polled from the database under the load and in
 * the tail, or -1 for a system without a standing holder (ShedLock)
 * @param withoutLeaderMillis time in which no node believed it led, from the nodes'
 * logged grants and revocations (one node led when the load began)
 * @param grants "leadership granted" lines in the nodes' logs from the load's start
 * @param revocations "revoked from" lines in the nodes' logs from the load's start
 * @param runNodeChanges job runs from the load's start on another node than the run
 * before
 * @param overlaps runs of two nodes at once, from the baseline to the end
 * @param longestOverlapMillis the longest of them
 * @param warnings WARN and ERROR lines in the nodes' logs from the load's start
 * @param failedRounds failed heartbeat rounds of all nodes from the load's start (this
 * starter), or -1
 * @param slowRounds heartbeat rounds that succeeded but took more than half the statement
 * timeout (this starter), or -1
 */
record LoadOutcome(SystemUnderTest system, double baselineSeconds, long baselineRuns, double loadSeconds, long loadRuns,
		double tailSeconds, long tailRuns, long heavyQueries, int holderChanges, long withoutLeaderMillis, long grants,
		long revocations, int runNodeChanges, int overlaps, long longestOverlapMillis, long warnings, long failedRounds,
		long slowRounds) {
}
