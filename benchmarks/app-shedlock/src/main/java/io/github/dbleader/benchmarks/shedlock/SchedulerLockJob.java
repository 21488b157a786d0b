package io.github.dbleader.benchmarks.shedlock;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.ConditionalOnJobBenchmark;
import io.github.dbleader.benchmarks.jobruns.JobRunTable;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The job as ShedLock's README writes it: every node's scheduler fires on the same cron
 * second and the node that gets the lock runs it. {@code lockAtLeastFor} keeps the lock
 * for half a period so a node whose trigger comes a little late does not run the same
 * period again.
 */
@Component
@ConditionalOnJobBenchmark
class SchedulerLockJob {

	private final JobRunTable runs;

	private final String nodeId;

	SchedulerLockJob(JobRunTable runs, BenchmarkProperties properties) {
		this.runs = runs;
		this.nodeId = properties.getNodeId();
	}

	@Scheduled(cron = "${bench.job-cron:* * * * * *}")
	@SchedulerLock(name = "bench-job", lockAtMostFor = "${bench.lease}",
			lockAtLeastFor = "${bench.lock-at-least-for:PT0.5S}")
	public void run() {
		this.runs.run(this.nodeId, 0);
	}

}
