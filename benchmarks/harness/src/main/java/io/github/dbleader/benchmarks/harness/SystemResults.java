package io.github.dbleader.benchmarks.harness;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.dbleader.benchmarks.harness.Database.StatementCounters;

/**
 * What was measured for one system.
 *
 * @param system the system
 * @param steadyState the database cost in steady state
 * @param failovers failover trials by kind, in trial order; a trial without a successor
 * within its deadline is missing and counted in {@code missedFailovers}
 * @param missedFailovers trials by kind that saw no run elsewhere within the deadline
 * @param pauses outcomes of the pause scenario
 * @param runsDuringFailoverTrials job runs recorded from the steady state to the end of
 * the failover trials
 * @param overlapsDuringFailoverTrials runs of two nodes at once in that span
 */
record SystemResults(SystemUnderTest system, SteadyState steadyState, Map<FaultKind, List<FailoverTrial>> failovers,
		Map<FaultKind, Integer> missedFailovers, List<PauseOutcome> pauses, int runsDuringFailoverTrials,
		List<JobRun.Overlap> overlapsDuringFailoverTrials) {

	/**
	 * The failover times of one kind of fault.
	 * @param kind the fault
	 * @return the times, or empty if the kind was not tried or no trial saw a successor
	 */
	Optional<Distribution> failoverTimes(FaultKind kind) {
		List<FailoverTrial> trials = this.failovers.get(kind);
		return (trials == null || trials.isEmpty()) ? Optional.empty()
				: Optional.of(Distribution.of(trials.stream().map(FailoverTrial::millis).toList()));
	}

	/**
	 * One failover trial.
	 *
	 * @param millis from the fault to the start of the first run of another node
	 * @param duringRun whether the faulted node was in the middle of a job run: it had
	 * logged the start of a run whose row was not committed before the fault
	 * @param periodMillis the job's period where each run starts at a trigger of its node
	 * ({@link SystemUnderTest#runsStartAtTriggers()}), else 0
	 */
	record FailoverTrial(long millis, boolean duringRun, long periodMillis) {

		/**
		 * The triggers of the node that ran first after the fault that came after the
		 * fault and did not run: its triggers come every period, so the first one after
		 * the fault came a whole number of periods before the run.
		 * @return how many, or -1 where runs do not start at triggers
		 */
		long triggersSkipped() {
			return (this.periodMillis > 0) ? this.millis / this.periodMillis : -1;
		}

		/**
		 * @return from the fault to the first trigger after it of the node that ran
		 * first, or -1 where runs do not start at triggers
		 */
		long triggerWait() {
			return (this.periodMillis > 0) ? this.millis % this.periodMillis : -1;
		}

	}

	/**
	 * The database cost in steady state: every node up, one running the job.
	 *
	 * @param seconds length of the window
	 * @param runs job runs that started in the window
	 * @param runnerSlot the slot whose node ran most of them
	 * @param runsBySlot job runs that started in the window, by slot (1-based)
	 * @param statements statements counted by MariaDB in the window, by slot
	 */
	record SteadyState(double seconds, int runs, int runnerSlot, Map<Integer, Long> runsBySlot,
			Map<Integer, StatementCounters> statements) {

		/**
		 * @return statements of all nodes in the window
		 */
		long totalStatements() {
			return this.statements.values().stream().mapToLong(StatementCounters::total).sum();
		}

		/**
		 * @return statements per second of the node that ran the job
		 */
		double runnerPerSecond() {
			return this.statements.getOrDefault(this.runnerSlot, StatementCounters.NONE).total() / this.seconds;
		}

		/**
		 * @return statements per second of a node that did not run the job, the mean over
		 * them
		 */
		double otherPerSecond() {
			return this.statements.entrySet()
				.stream()
				.filter((entry) -> entry.getKey() != this.runnerSlot)
				.mapToLong((entry) -> entry.getValue().total())
				.average()
				.orElse(0) / this.seconds;
		}

		/**
		 * @return statements of all nodes per job run
		 */
		double perRun() {
			return (this.runs > 0) ? (double) totalStatements() / this.runs : Double.NaN;
		}

	}

	/**
	 * One trial of the pause scenario: the node running the job frozen with SIGSTOP right
	 * after its run started, for two leases, then resumed.
	 *
	 * @param node the frozen node
	 * @param takeoverMillis from the freeze to the first run of another node, or -1 if
	 * none
	 * @param frozenRunCommitted whether the run in progress at the freeze was recorded
	 * @param staleWrite whether that run was committed after another node had started a
	 * run
	 * @param overlaps pairs of runs of two nodes at once around the pause
	 * @param longestOverlapMillis longest such overlap
	 */
	record PauseOutcome(String node, long takeoverMillis, boolean frozenRunCommitted, boolean staleWrite, int overlaps,
			long longestOverlapMillis) {
	}

}
