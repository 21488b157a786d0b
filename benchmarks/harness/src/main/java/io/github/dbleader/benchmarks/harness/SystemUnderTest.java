package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The systems compared (this starter in two modes), each a benchmark application module with its own tables in
 * the benchmark database.
 */
enum SystemUnderTest {

	/** This starter: {@code @LeaderOnly} and a fenced transaction. */
	OURS("this starter", "app-ours", "io.github.dbleader.benchmarks.ours.OursBenchmarkApplication", "job_runs_ours",
			List.of("leader_election_lease", "leader_election_candidate", "leader_election_lease_fence",
					"leader_election_lease_nodes"), true),

	/**
	 * This starter's cluster-lock mode: {@code @ClusterLock} (released after the run) on the
	 * same cron job as ShedLock's, and a transaction fenced by the lock.
	 */
	OURS_LOCK("this starter, @ClusterLock", "app-ours", "io.github.dbleader.benchmarks.ours.OursBenchmarkApplication",
			"job_runs_ours_lock", List.of("leader_election_lease", "leader_election_candidate",
					"leader_election_lease_fence", "leader_election_lease_nodes"), false),

	/** ShedLock: {@code @SchedulerLock} on {@code JdbcTemplateLockProvider.usingDbTime()}. */
	SHEDLOCK("ShedLock", "app-shedlock", "io.github.dbleader.benchmarks.shedlock.ShedLockBenchmarkApplication",
			"job_runs_shedlock", List.of("shedlock"), false),

	/** Spring Integration: {@code LockRegistryLeaderInitiator} on a {@code JdbcLockRegistry}. */
	INTEGRATION("Spring Integration", "app-integration",
			"io.github.dbleader.benchmarks.integration.IntegrationBenchmarkApplication", "job_runs_integration",
			List.of("INT_LOCK"), false);

	private final String label;

	private final String module;

	private final String mainClass;

	private final String jobRunsTable;

	private final List<String> lockTables;

	private final boolean forcedHandover;

	SystemUnderTest(String label, String module, String mainClass, String jobRunsTable, List<String> lockTables,
			boolean forcedHandover) {
		this.label = label;
		this.module = module;
		this.mainClass = mainClass;
		this.jobRunsTable = jobRunsTable;
		this.lockTables = lockTables;
		this.forcedHandover = forcedHandover;
	}

	String label() {
		return this.label;
	}

	String module() {
		return this.module;
	}

	String mainClass() {
		return this.mainClass;
	}

	String jobRunsTable() {
		return this.jobRunsTable;
	}

	/** @return the tables that hold the system's lease or lock, dropped before its run */
	List<String> lockTables() {
		return this.lockTables;
	}

	/** @return whether the system has an operator's forced hand-over (an actuator POST) */
	boolean hasForcedHandover() {
		return this.forcedHandover;
	}

	/**
	 * The system's own settings, all derived from the common lease and renew interval.
	 * @param settings the run's settings
	 * @param nodeId the node's id
	 * @param port the node's HTTP port
	 * @return command line arguments
	 */
	List<String> arguments(RunSettings settings, String nodeId, int port) {
		List<String> arguments = new ArrayList<>();
		arguments.add("--bench.node-id=" + nodeId);
		arguments.add("--bench.job-runs-table=" + this.jobRunsTable);
		arguments.add("--bench.lease=" + settings.lease());
		arguments.add("--bench.renew-interval=" + settings.renewInterval());
		arguments.add("--bench.job-duration=" + settings.jobDuration());
		arguments.add("--bench.job-interval=" + settings.jobInterval());
		switch (this) {
			case OURS, OURS_LOCK -> {
				arguments.add("--server.port=" + port);
				arguments.add("--leader-election.node-id=" + nodeId);
				arguments.add("--leader-election.lease-duration=" + millis(settings.lease()));
				arguments.add("--leader-election.renew-interval=" + millis(settings.renewInterval()));
				arguments.add("--leader-election.jdbc.initialize-schema=always");
				arguments.add("--management.endpoints.web.exposure.include=leader,metrics");
				arguments.add("--management.endpoint.leader.access=unrestricted");
				if (this == OURS_LOCK) {
					// The same job, trigger and lock times as ShedLock's.
					arguments.add("--bench.mode=lock");
					arguments.add("--bench.job-cron=" + settings.shedLockCron());
					arguments.add("--bench.lock-at-least-for=" + settings.lockAtLeastFor());
				}
			}
			case SHEDLOCK -> {
				arguments.add("--bench.job-cron=" + settings.shedLockCron());
				arguments.add("--bench.lock-at-least-for=" + settings.lockAtLeastFor());
			}
			case INTEGRATION -> {
			}
		}
		return arguments;
	}

	private static String millis(Duration duration) {
		return duration.toMillis() + "ms";
	}

}
