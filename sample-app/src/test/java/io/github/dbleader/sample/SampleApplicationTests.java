package io.github.dbleader.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroups;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * The sample application alone, on an in-memory H2 database of its own (the embedded
 * default, without the shared file): it leads, runs its fenced job, and serves the status
 * page and the APIs the page reads.
 */
class SampleApplicationTests {

	private SampleNode node;

	@AfterEach
	void stop() {
		if (this.node != null) {
			this.node.close();
		}
	}

	@Test
	void leadsRunsTheJobAndServesTheStatusPage() {
		this.node = SampleNode.start("solo", List.of(inMemoryDatabase(), "--sample.job-interval=50ms"));
		await().atMost(Duration.ofSeconds(10)).until(this.node.election()::isLeader);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.node.bean(JobRunRepository.class).latest(5).size() >= 3);
		assertThat(this.node.bean(JobRunRepository.class).latest(5)).allSatisfy((run) -> {
			assertThat(run.nodeId()).isEqualTo("solo");
			assertThat(run.term()).isEqualTo(this.node.election().term());
			// The job works 20ms by default, measured on the database clock.
			assertThat(Duration.between(run.startedAt(), run.finishedAt()))
				.isGreaterThanOrEqualTo(Duration.ofMillis(20));
		});

		HttpResponse<String> page = this.node.send("GET", "/", null);
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("id=\"leader\"", "id=\"candidates\"", "id=\"runs\"", "id=\"reelect\"",
				"id=\"database\"", "app.js");
		assertThat(this.node.send("GET", "/app.js", null).body()).contains("make-leader", "databaseUnreachableFor");

		HttpResponse<String> runs = this.node.send("GET", "/api/job-runs?limit=2", null);
		assertThat(runs.statusCode()).isEqualTo(200);
		assertThat(runs.body()).contains("\"databaseTime\":", "\"nodeId\":\"solo\"");

		HttpResponse<String> leader = this.node.send("GET", "/actuator/leader/default", null);
		assertThat(leader.statusCode()).isEqualTo(200);
		assertThat(leader.body()).contains("\"leader\":\"solo\"", "\"thisNodeLeads\":true");
		assertThat(this.node.send("GET", "/actuator/health/leader/default", null).body()).contains("\"status\":\"UP\"",
				"\"role\":\"leader\"", "\"leaseAge\":\"PT");
		// The sample's db indicator in place of Boot's, which has no time limit.
		assertThat(this.node.send("GET", "/actuator/health/db", null).body()).contains("\"status\":\"UP\"",
				"\"validationQuery\":\"isValid(1)\"");
		// The gauge of the job's election: without the tag it would sum the partitions'
		// too.
		assertThat(this.node.send("GET", "/actuator/metrics/leader.election.leader?tag=election:default", null).body())
			.contains("\"value\":1.0");
	}

	@Test
	void runsItsJobsNowOnRequest() throws Exception {
		// Triggers far apart: the runs below are the requests'.
		this.node = SampleNode.start("solo",
				List.of(inMemoryDatabase(), "--sample.job-interval=1h", "--sample.lock-job-cron=0 0 0 1 1 *"));
		await().atMost(Duration.ofSeconds(10)).until(this.node.election()::isLeader);
		assertThat(this.node.send("GET", "/actuator/jobs", null).body()).contains(
				"\"fencedJob.run\":{\"kind\":\"LEADER_ONLY\",\"election\":\"default\",\"method\":\"FencedJob.run\"}",
				"\"clusterLockJob.run\":{\"kind\":\"CLUSTER_LOCK\",\"lock\":\"sample-report\",\"method\":\"ClusterLockJob.run\"}");
		int before = this.node.bean(JobRunRepository.class).latest(100).size();
		HttpResponse<String> fenced = this.node.send("POST", "/actuator/jobs/fencedJob.run", null);
		assertThat(fenced.statusCode()).isEqualTo(200);
		assertThat(fenced.body()).contains("\"outcome\":\"COMPLETED\"", "\"nodeId\":\"solo\"",
				"\"term\":" + this.node.election().term());
		assertThat(this.node.bean(JobRunRepository.class).latest(100)).hasSize(before + 1);
		HttpResponse<String> locked = this.node.send("POST", "/actuator/jobs/clusterLockJob.run", null);
		assertThat(locked.statusCode()).isEqualTo(200);
		assertThat(locked.body()).contains("\"outcome\":\"COMPLETED\"");
		assertThat(this.node.send("GET", "/actuator/locks/sample-report", null).body())
			.contains("\"outcome\":\"COMPLETED\"");
	}

	@Test
	void ownsEveryPartitionAloneAndRecordsFencedRunsOfEach() {
		this.node = SampleNode.start("solo", List.of(inMemoryDatabase(), "--sample.partition-job-interval=100ms"));
		PartitionGroup orders = this.node.bean(PartitionGroups.class).group(PartitionedJob.GROUP);
		await().atMost(Duration.ofSeconds(10)).until(() -> orders.ownedPartitions().size() == 12);
		JobRunRepository partitionRuns = this.node.bean("partitionJobRunRepository", JobRunRepository.class);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> partitionRuns.latest(200)
				.stream()
				.map(JobRunRepository.JobRun::election)
				.distinct()
				.count() == 12);
		assertThat(partitionRuns.latest(200)).allSatisfy((run) -> {
			assertThat(run.nodeId()).isEqualTo("solo");
			int partition = Integer.parseInt(run.election().substring("partition:orders:".length()));
			assertThat(run.term()).as("the term of partition %d", partition).isEqualTo(orders.term(partition));
		});
		assertThat(this.node.send("GET", "/actuator/partitions/orders", null).body())
			.contains("\"partitionsPerNode\":{\"solo\":12}");
		assertThat(this.node.send("GET", "/", null).body()).contains("id=\"partition-grid\"", "partitions.js");
	}

	@Test
	void runsTheClusterLockJobFencedAndShowsItsRuns() {
		this.node = SampleNode.start("solo", List.of(inMemoryDatabase(), "--sample.lock-job-cron=* * * * * *",
				"--sample.lock-job-at-least-for=500ms", "--sample.lock-job-duration=50ms"));
		JobRunRepository lockJobRuns = this.node.bean("lockJobRunRepository", JobRunRepository.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> lockJobRuns.latest(5).size() >= 2);
		assertThat(lockJobRuns.latest(5)).allSatisfy((run) -> {
			assertThat(run.nodeId()).isEqualTo("solo");
			assertThat(run.election()).isEqualTo("lock:sample-report");
			assertThat(Duration.between(run.startedAt(), run.finishedAt()))
				.isGreaterThanOrEqualTo(Duration.ofMillis(50));
		});
		assertThat(this.node.bean(JobRunRepository.class).latest(50))
			.noneMatch((run) -> run.election().startsWith("lock:"));
		assertThat(this.node.send("GET", "/api/lock-job-runs", null).body()).contains("\"runsPerNode\":{\"solo\":",
				"\"counted\":60");
		assertThat(this.node.send("GET", "/", null).body()).contains("id=\"lock-job\"", "lock-job.js");
		assertThat(this.node.send("GET", "/actuator/locks", null).body()).contains("\"sample-report\":",
				"\"lastHolder\":\"solo\"", "\"recentRuns\":[");
		assertThat(this.node.send("GET", "/actuator/metrics/leader.election.lock.acquisitions", null).body())
			.contains("\"lock\"", "sample-report");
	}

	@Test
	void theProfileNoPartitionsLeavesOutTheGroupOnly() {
		this.node = SampleNode.start("solo", List.of(inMemoryDatabase(), "--spring.profiles.active=no-partitions"));
		assertThat(this.node.bean(PartitionGroups.class).groups()).isEmpty();
		// The rest of application.properties still applies (the fault tests rely on it).
		assertThat(this.node.bean(ElectionService.class).settings().leaseDuration()).isEqualTo(Duration.ofSeconds(6));
		assertThat(this.node.send("GET", "/actuator/partitions/orders", null).statusCode()).isEqualTo(404);
	}

	@Test
	void refusesAJobRunsTableNameThatIsNoPlainIdentifier() {
		assertThatException()
			.isThrownBy(() -> SampleNode.start("solo",
					List.of(inMemoryDatabase(), "--sample.job-runs-table=job_runs; DROP TABLE x")))
			.satisfies((ex) -> assertThat(ex).rootCause().hasMessageContaining("sample.job-runs-table"));
	}

	private static String inMemoryDatabase() {
		return "--spring.datasource.url=jdbc:h2:mem:sample-" + UUID.randomUUID() + ";MODE=MySQL";
	}

}
