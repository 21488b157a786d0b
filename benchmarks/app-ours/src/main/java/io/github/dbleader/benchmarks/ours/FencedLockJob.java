package io.github.dbleader.benchmarks.ours;

import java.util.function.LongConsumer;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.JobRunTable;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockNotHeldException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job in one of this starter's cluster-lock modes: it records its run in a transaction
 * fenced by the lock it holds, and only logs a record that the fence refuses (the lock
 * was lost meanwhile), as the benchmark counts runs from the records.
 */
abstract class FencedLockJob {

	private static final Logger logger = LoggerFactory.getLogger(FencedLockJob.class);

	private final ClusterLocks locks;

	private final JobRunTable runs;

	private final String nodeId;

	FencedLockJob(ClusterLocks locks, JobRunTable runs, BenchmarkProperties properties) {
		this.locks = locks;
		this.runs = runs;
		this.nodeId = properties.getNodeId();
	}

	/**
	 * @return the table the runs are recorded in
	 */
	protected JobRunTable runs() {
		return this.runs;
	}

	/**
	 * @return this node
	 */
	protected String nodeId() {
		return this.nodeId;
	}

	/**
	 * Record the run in a transaction fenced by the current run's lock.
	 * @param record writes the record, given the lock's term
	 */
	protected void recordFenced(LongConsumer record) {
		try {
			this.locks.currentLock().orElseThrow().runFenced((term) -> {
				record.accept(term);
				return null;
			});
		}
		catch (LockNotHeldException ex) {
			logger.info("Job run not recorded: {}", ex.getMessage());
		}
	}

}
