package io.github.dbleader.benchmarks.integration;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.ConditionalOnJobBenchmark;
import io.github.dbleader.benchmarks.jobruns.JobRunTable;

import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The job: every node's scheduler fires, and the node whose initiator context says it
 * leads runs it.
 */
@Component
@ConditionalOnJobBenchmark
class LeaderJob {

	private final LockRegistryLeaderInitiator initiator;

	private final JobRunTable runs;

	private final String nodeId;

	LeaderJob(LockRegistryLeaderInitiator initiator, JobRunTable runs, BenchmarkProperties properties) {
		this.initiator = initiator;
		this.runs = runs;
		this.nodeId = properties.getNodeId();
	}

	@Scheduled(fixedRateString = "${bench.job-interval:1s}")
	public void run() {
		if (this.initiator.getContext().isLeader()) {
			this.runs.run(this.nodeId, 0);
		}
	}

}
