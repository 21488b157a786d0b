package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The systems compared (this starter and ShedLock in several modes), each a benchmark
 * application module with its own tables in the benchmark database.
 */
enum SystemUnderTest {

	/** This starter: {@code @LeaderOnly} and a fenced transaction. */
	OURS("this starter", "app-ours", "io.github.dbleader.benchmarks.ours.OursBenchmarkApplication", "job_runs_ours",
			List.of("leader_election_lease", "leader_election_candidate", "leader_election_lease_fence",
					"leader_election_lease_nodes"),
			true),

	/**
	 * This starter's cluster-lock mode: {@code @ClusterLock} (released after the run) on
	 * the same cron job as ShedLock's, and a transaction fenced by the lock.
	 */
	OURS_LOCK("this starter, @ClusterLock", "app-ours", "io.github.dbleader.benchmarks.ours.OursBenchmarkApplication",
			"job_runs_ours_lock",
			List.of("leader_election_lease", "leader_election_candidate", "leader_election_lease_fence",
					"leader_election_lease_nodes"),
			false),

	/**
	 * The long run of this starter's cluster-lock mode: {@code @ClusterLock} with
	 * {@code maxFor}, whose lock this node's heartbeat keeps alive while a run of three
	 * leases (3 x atMostFor) works; the run is recorded in a transaction fenced by the
	 * lock at its end.
	 */
	OURS_LONG("this starter, @ClusterLock(maxFor) kept alive: long run", "app-ours",
			"io.github.dbleader.benchmarks.ours.OursBenchmarkApplication", "job_runs_ours_long",
			List.of("leader_election_lease", "leader_election_candidate", "leader_election_lease_fence",
					"leader_election_lease_nodes"),
			false),

	/**
	 * The long run of ShedLock: its {@code KeepAliveLockProvider} around the JDBC
	 * provider, the same runs of three leases.
	 */
	SHEDLOCK_LONG("ShedLock, KeepAliveLockProvider: long run", "app-shedlock",
			"io.github.dbleader.benchmarks.shedlock.ShedLockBenchmarkApplication", "job_runs_shedlock_long",
			List.of("shedlock"), false),

	/**
	 * ShedLock's annotations on this starter's provider: {@code @SchedulerLock} only, the
	 * {@code LockProvider} auto-configured by {@code leader-election-shedlock}, the run
	 * recorded in a transaction fenced by its lock
	 * ({@code SchedulerLockContext.runFenced}).
	 */
	SHEDLOCK_PROVIDER("@SchedulerLock on this starter's provider", "app-shedlock-provider",
			"io.github.dbleader.benchmarks.shedlockprovider.ShedLockProviderBenchmarkApplication",
			"job_runs_shedlock_provider",
			List.of("leader_election_lease", "leader_election_candidate", "leader_election_lease_fence",
					"leader_election_lease_nodes"),
			false),

	/**
	 * ShedLock: {@code @SchedulerLock} on {@code JdbcTemplateLockProvider.usingDbTime()}.
	 */
	SHEDLOCK("ShedLock", "app-shedlock", "io.github.dbleader.benchmarks.shedlock.ShedLockBenchmarkApplication",
			"job_runs_shedlock", List.of("shedlock"), false),

	/**
	 * Spring Integration: {@code LockRegistryLeaderInitiator} on a
	 * {@code JdbcLockRegistry}.
	 */
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

	/**
	 * @return the tables that hold the system's lease or lock, dropped before its run
	 */
	List<String> lockTables() {
		return this.lockTables;
	}

	/**
	 * @return whether the system has an operator's forced hand-over (an actuator POST)
	 */
	boolean hasForcedHandover() {
		return this.forcedHandover;
	}

	/**
	 * @return whether each job run lasts three leases, longer than its lock's
	 * {@code atMostFor} (the lock must be kept alive)
	 */
	boolean longRun() {
		return this == OURS_LONG || this == SHEDLOCK_LONG;
	}

	/**
	 * @return whether each run starts at a trigger of its node's scheduler, so that the
	 * triggers between a fault and the first run after it can be told from that run's
	 * start: not the long runs (recorded at their end) nor this starter's locks, whose
	 * tries wait a random spread after the trigger
	 */
	boolean runsStartAtTriggers() {
		return this == OURS || this == SHEDLOCK || this == INTEGRATION;
	}

	/**
	 * @param settings the run's settings
	 * @return how long each job run works: three leases in a long run, else the run's
	 * setting
	 */
	Duration jobDuration(RunSettings settings) {
		return longRun() ? settings.lease().multipliedBy(3) : settings.jobDuration();
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
		arguments.add("--bench.job-duration=" + jobDuration(settings));
		arguments.add("--bench.job-interval=" + settings.jobInterval());
		switch (this) {
			case OURS, OURS_LOCK, OURS_LONG, SHEDLOCK_PROVIDER -> {
				arguments.add("--server.port=" + port);
				arguments.add("--leader-election.node-id=" + nodeId);
				arguments.add("--leader-election.lease-duration=" + millis(settings.lease()));
				arguments.add("--leader-election.renew-interval=" + millis(settings.renewInterval()));
				arguments.add("--leader-election.jdbc.initialize-schema=always");
				arguments.add("--management.endpoints.web.exposure.include=leader,metrics");
				arguments.add("--management.endpoint.leader.access=unrestricted");
				if (this != OURS) {
					// The same job, trigger and lock times as ShedLock's.
					arguments.add("--bench.mode=" + ((this == OURS_LONG) ? "kept-alive-lock" : "lock"));
					// (app-shedlock-provider has one job and ignores it.) A node that
					// only takes locks joins no election, so it runs no heartbeat.
					arguments.add("--leader-election.elections=");
					arguments.add("--bench.job-cron=" + settings.shedLockCron());
					arguments.add("--bench.lock-at-least-for=" + settings.lockAtLeastFor());
				}
				if (this == OURS_LONG) {
					arguments.add("--bench.lock-max-for=" + settings.lockMaxFor());
				}
			}
			case SHEDLOCK, SHEDLOCK_LONG -> {
				arguments.add("--bench.job-cron=" + settings.shedLockCron());
				arguments.add("--bench.lock-at-least-for=" + settings.lockAtLeastFor());
				if (this == SHEDLOCK_LONG) {
					arguments.add("--bench.mode=keep-alive");
				}
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
