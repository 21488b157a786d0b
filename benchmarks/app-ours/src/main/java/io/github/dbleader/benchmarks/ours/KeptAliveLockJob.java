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
 * The long-run job ({@code bench.mode=kept-alive-lock}): {@link ClusterLockJob}'s cron
 * and lock times, but each run works longer than {@code atMostFor}
 * ({@code bench.job-duration} is three leases), so its lock is kept alive by this node's
 * heartbeat up to {@code maxFor}. The run records itself in a fenced transaction at the
 * end of its work rather than around it, so that its transaction is as short as any
 * other's; the fence refuses the record if the lock was lost meanwhile.
 */
@Component
@ConditionalOnJobBenchmark
@ConditionalOnProperty(name = "bench.mode", havingValue = "kept-alive-lock")
class KeptAliveLockJob extends FencedLockJob {

	KeptAliveLockJob(ClusterLocks locks, JobRunTable runs, BenchmarkProperties properties) {
		super(locks, runs, properties);
	}

	@Scheduled(cron = "${bench.job-cron:* * * * * *}")
	@ClusterLock(name = "bench-job", atMostFor = "${bench.lease}", atLeastFor = "${bench.lock-at-least-for:PT0.5S}",
			maxFor = "${bench.lock-max-for}")
	public void run() {
		runs().work().ifPresent((startedAt) -> recordFenced((term) -> runs().record(nodeId(), term, startedAt)));
	}

}
