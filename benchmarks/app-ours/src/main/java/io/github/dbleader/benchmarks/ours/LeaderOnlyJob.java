package io.github.dbleader.benchmarks.ours;

import io.github.dbleader.benchmarks.jobruns.ConditionalOnJobBenchmark;
import io.github.dbleader.benchmarks.jobruns.JobRunTable;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.aop.LeaderOnly;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The job as a user of this starter writes it: skipped on followers by
 * {@link LeaderOnly @LeaderOnly} without touching the database, and recorded in a fenced
 * transaction on the leader.
 */
@Component
@ConditionalOnJobBenchmark
@ConditionalOnProperty(name = "bench.mode", havingValue = "leader", matchIfMissing = true)
class LeaderOnlyJob {

	private static final Logger logger = LoggerFactory.getLogger(LeaderOnlyJob.class);

	private final Election election;

	private final JobRunTable runs;

	LeaderOnlyJob(ElectionService elections, JobRunTable runs) {
		this.election = elections.election("default");
		this.runs = runs;
	}

	@LeaderOnly
	@Scheduled(fixedRateString = "${bench.job-interval:1s}")
	public void run() {
		try {
			this.election.runFenced((term) -> {
				this.runs.run(this.election.nodeId(), term);
				return null;
			});
		}
		catch (NotLeaderException ex) {
			logger.info("Job run not recorded: {}", ex.getMessage());
		}
	}

}
