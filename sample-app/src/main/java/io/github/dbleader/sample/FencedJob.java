package io.github.dbleader.sample;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.aop.LeaderOnly;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;

/**
 * The job: runs on the leader only ({@link LeaderOnly} skips it elsewhere without
 * touching the database) and records each run inside a fenced transaction, so a leader
 * that was paused and lost its lease cannot commit a run after a new leader took over.
 */
@Component
public class FencedJob {

	/**
	 * The election the job runs under: the one {@link LeaderOnly @LeaderOnly} checks by
	 * default.
	 */
	static final String ELECTION = "default";

	private static final Logger logger = LoggerFactory.getLogger(FencedJob.class);

	private final Election election;

	private final JobRunRepository runs;

	private final SampleProperties properties;

	public FencedJob(ElectionService elections, JobRunRepository runs, SampleProperties properties) {
		this.election = elections.election(ELECTION);
		this.runs = runs;
		this.properties = properties;
	}

	@LeaderOnly(ELECTION)
	@Scheduled(fixedDelayString = "${sample.job-interval:1s}")
	public void run() {
		try {
			this.election.runFenced((term) -> {
				long startedAt = this.runs.databaseTime();
				work();
				this.runs.insert(this.election.name(), this.election.nodeId(), term, startedAt);
				return null;
			});
		}
		catch (NotLeaderException ex) {
			// Leadership ended between the @LeaderOnly check and the fence: nothing was
			// written.
			logger.info("Job run not recorded: {}", ex.getMessage());
		}
		catch (DataAccessException | TransactionException ex) {
			// The database did not answer (no connection within the pool's wait, a
			// timeout): nothing was committed, and the next run tries again if this node
			// still leads.
			logger.warn("Job run not recorded: the database did not answer: {}", ex.getMessage());
		}
	}

	private void work() {
		try {
			Thread.sleep(this.properties.getJobDuration().toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
