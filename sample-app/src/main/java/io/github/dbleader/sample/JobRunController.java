package io.github.dbleader.sample;

import java.time.Instant;
import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The latest job runs and the database clock, for the status page. The page shows ages
 * ("last seen 0.4 s ago") against the database clock, since every time it shows was
 * written by the database: the browser's clock may differ from it.
 */
@RestController
public class JobRunController {

	private final JobRunRepository runs;

	public JobRunController(JobRunRepository runs) {
		this.runs = runs;
	}

	@GetMapping("/api/job-runs")
	public JobRuns latest(@RequestParam(defaultValue = "15") int limit) {
		Instant now = Instant.ofEpochMilli(this.runs.databaseTime());
		return new JobRuns(now, this.runs.latest(Math.max(1, Math.min(limit, 200))));
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
