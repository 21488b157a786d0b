package io.github.dbleader.benchmarks.ours;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.ConditionalOnJobBenchmark;
import io.github.dbleader.benchmarks.jobruns.JobRunTable;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.lock.ClusterLocks;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The job in this starter's cluster-lock mode ({@code bench.mode=lock}), written as
 * ShedLock's benchmark job is: every node's scheduler fires on the same cron second and
 * the node that takes the lock runs it, released after the run and kept at least half a
 * period; the run is recorded in a transaction fenced by the lock.
 */
@Component
@ConditionalOnJobBenchmark
@ConditionalOnProperty(name = "bench.mode", havingValue = "lock")
class ClusterLockJob extends FencedLockJob {

	ClusterLockJob(ClusterLocks locks, JobRunTable runs, BenchmarkProperties properties) {
		super(locks, runs, properties);
	}

	@Scheduled(cron = "${bench.job-cron:* * * * * *}")
	@ClusterLock(name = "bench-job", atMostFor = "${bench.lease}", atLeastFor = "${bench.lock-at-least-for:PT0.5S}")
	public void run() {
		recordFenced((term) -> runs().run(nodeId(), term));
	}

}
