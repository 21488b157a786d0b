package io.github.dbleader.benchmarks.shedlockprovider;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.ConditionalOnJobBenchmark;
import io.github.dbleader.benchmarks.jobruns.JobRunTable;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.shedlock.SchedulerLockContext;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * ShedLock's benchmark job with ShedLock's annotations unchanged, but its work and record
 * in a transaction fenced by the run's lock ({@link SchedulerLockContext#runFenced}): the
 * record carries the run's term and commits only while the run still holds its lock.
 */
@Component
@ConditionalOnJobBenchmark
class FencedSchedulerLockJob {

	private static final Logger logger = LoggerFactory.getLogger(FencedSchedulerLockJob.class);

	private final JobRunTable runs;

	private final String nodeId;

	FencedSchedulerLockJob(JobRunTable runs, BenchmarkProperties properties) {
		this.runs = runs;
		this.nodeId = properties.getNodeId();
	}

	@Scheduled(cron = "${bench.job-cron:* * * * * *}")
	@SchedulerLock(name = "bench-job", lockAtMostFor = "${bench.lease}",
			lockAtLeastFor = "${bench.lock-at-least-for:PT0.5S}")
	public void run() {
		try {
			SchedulerLockContext.runFenced((term) -> {
				this.runs.run(this.nodeId, term);
				return null;
			});
		}
		catch (LockNotHeldException ex) {
			logger.info("Job run not recorded: {}", ex.getMessage());
		}
	}

}
