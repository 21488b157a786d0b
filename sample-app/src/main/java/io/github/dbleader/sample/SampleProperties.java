package io.github.dbleader.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample job.
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	/**
	 * Pause between the end of one job run and the start of the next.
	 */
	private Duration jobInterval = Duration.ofSeconds(1);

	/**
	 * How long each job run works inside its fenced transaction.
	 */
	private Duration jobDuration = Duration.ofMillis(20);

	/**
	 * Name of the table that records the job runs: a plain identifier (letters, digits,
	 * underscores; at most 63 characters). Created at start-up if missing.
	 */
	private String jobRunsTable = "job_runs";

	/**
	 * How long each run of the cluster-lock job works (see lock-job-work-in-fence).
	 */
	private Duration lockJobDuration = Duration.ofMillis(200);

	/**
	 * Whether the lock job works inside its fenced transaction (holding the lock's fence
	 * for the whole run) rather than before it. A kept-alive run longer than a lease must
	 * work before it: the database ends a fenced transaction that stays idle for longer.
	 */
	private boolean lockJobWorkInFence = true;

	/**
	 * Name of the table that records the cluster-lock job's runs: a plain identifier, as
	 * for job-runs-table. Created at start-up if missing.
	 */
	private String lockJobRunsTable = "lock_job_runs";

	/**
	 * Pause between the end of one run of the partitioned job and the start of the next.
	 */
	private Duration partitionJobInterval = Duration.ofSeconds(1);

	/**
	 * How long the partitioned job works on each partition inside its fenced transaction.
	 */
	private Duration partitionJobDuration = Duration.ofMillis(20);

	/**
	 * Name of the table that records the partitioned job's runs (one row per partition
	 * and run): a plain identifier, as for job-runs-table. Created at start-up if
	 * missing.
	 */
	private String partitionJobRunsTable = "partition_job_runs";

	/**
	 * Whether to expose POST /api/business-load, a test hook that holds connections of
	 * the application's pool with slow queries.
	 */
	private boolean businessLoadEndpoint;

	public Duration getJobInterval() {
		return this.jobInterval;
	}

	public void setJobInterval(Duration jobInterval) {
		this.jobInterval = jobInterval;
	}

	public Duration getJobDuration() {
		return this.jobDuration;
	}

	public void setJobDuration(Duration jobDuration) {
		this.jobDuration = jobDuration;
	}

	public String getJobRunsTable() {
		return this.jobRunsTable;
	}

	public void setJobRunsTable(String jobRunsTable) {
		this.jobRunsTable = jobRunsTable;
	}

	public boolean isLockJobWorkInFence() {
		return this.lockJobWorkInFence;
	}

	public void setLockJobWorkInFence(boolean lockJobWorkInFence) {
		this.lockJobWorkInFence = lockJobWorkInFence;
	}

	public Duration getLockJobDuration() {
		return this.lockJobDuration;
	}

	public void setLockJobDuration(Duration lockJobDuration) {
		this.lockJobDuration = lockJobDuration;
	}

	public String getLockJobRunsTable() {
		return this.lockJobRunsTable;
	}

	public void setLockJobRunsTable(String lockJobRunsTable) {
		this.lockJobRunsTable = lockJobRunsTable;
	}

	public Duration getPartitionJobInterval() {
		return this.partitionJobInterval;
	}

	public void setPartitionJobInterval(Duration partitionJobInterval) {
		this.partitionJobInterval = partitionJobInterval;
	}

	public Duration getPartitionJobDuration() {
		return this.partitionJobDuration;
	}

	public void setPartitionJobDuration(Duration partitionJobDuration) {
		this.partitionJobDuration = partitionJobDuration;
	}

	public String getPartitionJobRunsTable() {
		return this.partitionJobRunsTable;
	}

	public void setPartitionJobRunsTable(String partitionJobRunsTable) {
		this.partitionJobRunsTable = partitionJobRunsTable;
	}

	public boolean isBusinessLoadEndpoint() {
		return this.businessLoadEndpoint;
	}

	public void setBusinessLoadEndpoint(boolean businessLoadEndpoint) {
		this.businessLoadEndpoint = businessLoadEndpoint;
	}

}
