package io.github.dbleader.sample;

import java.time.Duration;
import java.util.List;

import io.github.dbleader.sample.SampleDatabase.Run;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's cluster-lock job on three nodes against the test database: each trigger
 * runs on one node, whichever takes the lock, so the runs spread over the nodes; no two
 * runs overlap, and each run has an acquisition, a term, of its own.
 */
class SampleClusterLockIntegrationTests extends AbstractSampleIntegrationTests {

	@Test
	void eachTriggerRunsOnOneNodeAndTheRunsSpreadOverTheNodes() throws Exception {
		List<SampleNode> nodes = List.of(start("lock-a"), start("lock-b"), start("lock-c"));
		await().atMost(Duration.ofSeconds(60)).until(() -> this.database.lockJobRuns().size() >= 15);
		List<Run> runs = this.database.lockJobRuns();
		assertThat(runs.stream().map(Run::nodeId).distinct()).as("nodes that ran the job").hasSizeGreaterThan(1);
		assertThat(runs.stream().map(Run::term).distinct()).as("one acquisition per run").hasSameSizeAs(runs);
		for (int i = 1; i < runs.size(); i++) {
			Run previous = runs.get(i - 1);
			Run next = runs.get(i);
			assertThat(next.startedAt()).as("%s starts after %s ended", next, previous)
				.isGreaterThanOrEqualTo(previous.finishedAt());
			// Two runs of one trigger would start within the run's duration of each
			// other;
			// atLeastFor (500ms here) keeps the lock of a fast run taken past that.
			assertThat(next.startedAt() - previous.startedAt()).as("start of %s after %s", next, previous)
				.isGreaterThanOrEqualTo(500);
			assertThat(next.term()).isGreaterThan(previous.term());
		}
		String page = nodes.get(0).send("GET", "/api/lock-job-runs", null).body();
		assertThat(page).contains("\"runsPerNode\":{", "\"lock-");
		assertThat(nodes.get(0).send("GET", "/actuator/locks/sample-report", null).body()).contains("\"term\":");
	}

}
