package io.github.dbleader.sample;

import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockNotHeldException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;

/**
 * The second job: every node's scheduler fires it at the same moments (a cron
 * expression), and each trigger runs on whichever node takes the lock {@value #LOCK}
 * ({@link ClusterLock @ClusterLock}, released after the run), so the runs spread over the
 * instances with no standing leader. Each run is recorded in a transaction fenced by its
 * lock: a node paused past {@code atMostFor} cannot commit its run after another node
 * took the lock.
 */
@Component
public class ClusterLockJob {

	/** The lock's name. */
	static final String LOCK = "sample-report";

	private static final Logger logger = LoggerFactory.getLogger(ClusterLockJob.class);

	private final ClusterLocks locks;

	private final JobRunRepository runs;

	private final SampleProperties properties;

	public ClusterLockJob(ClusterLocks locks, @Qualifier(JobRunTables.LOCK_JOB_RUNS) JobRunRepository runs,
			SampleProperties properties) {
		this.locks = locks;
		this.runs = runs;
		this.properties = properties;
	}

	// atLeastFor keeps a fast run's lock taken past the moment a node whose clock is a
	// little behind fires the same trigger; it must stay below the period of the cron
	// expression. With sample.lock-job-max-for set, a run keeps its lock alive past
	// atMostFor (up to that long), and a crashed holder frees it about a lease after its
	// last renewal.
	@ClusterLock(name = LOCK, atMostFor = "${sample.lock-job-at-most-for:10s}",
			atLeastFor = "${sample.lock-job-at-least-for:1s}", mode = ClusterLock.Mode.RELEASE_AFTER_RUN,
			maxFor = "${sample.lock-job-max-for:}")
	@Scheduled(cron = "${sample.lock-job-cron:*/2 * * * * *}")
	public void run() {
		HeldLock lock = this.locks.currentLock().orElseThrow();
		try {
			if (this.properties.isLockJobWorkInFence()) {
				lock.runFenced((term) -> {
					long startedAt = this.runs.databaseTime();
					work();
					this.runs.insert(ClusterLocks.key(LOCK), this.locks.getNodeId(), term, startedAt);
					return null;
				});
			}
			else {
				// The work before the fenced transaction, which only records it: the
				// database ends a fenced transaction that stays idle through a run longer
				// than a lease of a kept-alive lock (it cannot tell a slow holder from a
				// frozen one).
				long startedAt = this.runs.databaseTime();
				work();
				lock.runFenced((term) -> {
					this.runs.insert(ClusterLocks.key(LOCK), this.locks.getNodeId(), term, startedAt);
					return null;
				});
			}
		}
		catch (LockNotHeldException ex) {
			// The lock ran out (atMostFor) or was released by an operator: nothing was
			// written.
			logger.info("Lock job run not recorded: {}", ex.getMessage());
		}
		catch (DataAccessException | TransactionException ex) {
			logger.warn("Lock job run not recorded: the database did not answer: {}", ex.getMessage());
		}
	}

	private void work() {
		try {
			Thread.sleep(this.properties.getLockJobDuration().toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
