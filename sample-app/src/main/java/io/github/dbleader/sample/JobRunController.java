package io.github.dbleader.sample;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The latest runs of both jobs and the database clock, for the status page; for the
 * cluster-lock job also how its latest runs spread over the nodes. The page shows ages
 * ("last seen 0.4 s ago") against the database clock, since every time it shows was
 * written by the database: the browser's clock may differ from it.
 */
@RestController
public class JobRunController {

	/** How many of the lock job's latest runs the count per node covers. */
	private static final int COUNTED_RUNS = 60;

	private final JobRunRepository runs;

	private final JobRunRepository lockJobRuns;

	public JobRunController(JobRunRepository runs,
			@Qualifier(JobRunTables.LOCK_JOB_RUNS) JobRunRepository lockJobRuns) {
		this.runs = runs;
		this.lockJobRuns = lockJobRuns;
	}

	@GetMapping("/api/job-runs")
	public JobRuns latest(@RequestParam(defaultValue = "15") int limit) {
		Instant now = Instant.ofEpochMilli(this.runs.databaseTime());
		return new JobRuns(now, this.runs.latest(Math.max(1, Math.min(limit, 200))));
	}

	@GetMapping("/api/lock-job-runs")
	public LockJobRuns latestOfTheLockJob(@RequestParam(defaultValue = "15") int limit) {
		Instant now = Instant.ofEpochMilli(this.lockJobRuns.databaseTime());
		return new LockJobRuns(now, COUNTED_RUNS, this.lockJobRuns.runsPerNode(COUNTED_RUNS),
				this.lockJobRuns.latest(Math.max(1, Math.min(limit, 200))));
	}

	/**
	 * The answer of {@code GET /api/lock-job-runs}.
	 *
	 * @param databaseTime the database clock when the runs were read
	 * @param counted how many of the latest runs {@code runsPerNode} counts
	 * @param runsPerNode how many of them each node made, by node id
	 * @param runs the latest runs, newest first
	 */
	public record LockJobRuns(Instant databaseTime, int counted, Map<String, Integer> runsPerNode,
			List<JobRunRepository.JobRun> runs) {
	}

	/**
	 * The answer of {@code GET /api/job-runs}.
	 *
	 * @param databaseTime the database clock when the runs were read
	 * @param runs the latest runs, newest first
	 */
	public record JobRuns(Instant databaseTime, List<JobRunRepository.JobRun> runs) {
	}

}
