package io.github.dbleader.benchmarks.jobruns;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings the benchmark harness passes to every benchmark application.
 */
@ConfigurationProperties("bench")
public class BenchmarkProperties {

	/**
	 * Id of this node, written into each job run; unique among the processes of one run.
	 */
	private String nodeId = "node";

	/**
	 * Name of the table that records the job runs: a plain identifier.
	 */
	private String jobRunsTable = "job_runs";

	/**
	 * How long each job run works.
	 */
	private Duration jobDuration = Duration.ofMillis(100);

	/**
	 * Lease: how long leadership or a lock lasts without renewal, the same for every
	 * system.
	 */
	private Duration lease = Duration.ofSeconds(3);

	/**
	 * How often a node polls or renews, where the system lets it be set.
	 */
	private Duration renewInterval = Duration.ofMillis(500);

	/**
	 * Number of elections, roles or locks of the scale benchmark; 0 for the job benchmark
	 * (one job, one election). Above 0 the job does not run.
	 */
	private int scale;

	/**
	 * Port of the load benchmark's hook ({@link PoolLoadHook}); unset: no hook.
	 */
	private int businessLoadPort;

	public String getNodeId() {
		return this.nodeId;
	}

	public void setNodeId(String nodeId) {
		this.nodeId = nodeId;
	}

	public String getJobRunsTable() {
		return this.jobRunsTable;
	}

	public void setJobRunsTable(String jobRunsTable) {
		this.jobRunsTable = jobRunsTable;
	}

	public Duration getJobDuration() {
		return this.jobDuration;
	}

	public void setJobDuration(Duration jobDuration) {
		this.jobDuration = jobDuration;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public Duration getRenewInterval() {
		return this.renewInterval;
	}

	public void setRenewInterval(Duration renewInterval) {
		this.renewInterval = renewInterval;
	}

	public int getBusinessLoadPort() {
		return this.businessLoadPort;
	}

	public void setBusinessLoadPort(int businessLoadPort) {
		this.businessLoadPort = businessLoadPort;
	}

	public int getScale() {
		return this.scale;
	}

	public void setScale(int scale) {
		this.scale = scale;
	}

}
