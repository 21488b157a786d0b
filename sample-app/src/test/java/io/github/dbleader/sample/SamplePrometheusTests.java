package io.github.dbleader.sample;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.dbleader.election.partition.PartitionGroups;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two nodes of the sample on one in-memory H2 database, scraped at
 * {@code /actuator/prometheus} once each has led or followed, taken and missed the
 * cluster lock and owned partitions. The scrape is written to {@value #SCRAPE}: {@code
 * .ci/prometheus-rules} checks that every series the Prometheus rules and the Grafana
 * dashboard under {@code docs/operations} read is in it, so that a renamed meter fails
 * the build rather than an alert in production.
 */
class SamplePrometheusTests {

	static final String SCRAPE = "target/prometheus/sample-scrape.txt";

	/** One sample line: the name, the labels if any, the value. */
	private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)",
			Pattern.MULTILINE);

	private final List<SampleNode> nodes = new ArrayList<>();

	@AfterEach
	void stop() {
		this.nodes.forEach(SampleNode::close);
	}

	@Test
	void scrapesTheSeriesTheRulesAndTheDashboardRead() throws IOException {
		List<String> arguments = List.of(
				"--spring.datasource.url=jdbc:h2:mem:sample-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;MODE=MySQL",
				"--sample.job-interval=100ms", "--sample.lock-job-cron=* * * * * *",
				"--sample.lock-job-at-least-for=100ms", "--sample.lock-job-duration=50ms",
				"--leader-election.partitions.orders.settle-time=0s");
		SampleNode a = start("a", arguments);
		await().atMost(Duration.ofSeconds(10)).until(a.election()::isLeader);
		SampleNode b = start("b", arguments);
		// Both fire the lock job every second: one takes the lock, the other skips the
		// run.
		await().atMost(Duration.ofSeconds(20))
			.until(() -> b.skippedJobCalls() > 0 && (scrape(a).contains("leader_election_lock_skips_total")
					|| scrape(b).contains("leader_election_lock_skips_total")));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> owned(a) + owned(b) == 12 && owned(a) > 0 && owned(b) > 0
					&& scrape(a).contains("leader_election_lock_overdue")
					&& scrape(b).contains("leader_election_lock_overdue"));
		String scrapes = scrape(a) + scrape(b);
		// The rules' own assumption: exactly one node reports leading the sample's
		// election.
		assertThat(sum(scrapes, "leader_election_leader", "election=\"default\"")).isEqualTo(1);
		assertThat(sum(scrapes, "leader_election_partitions_owned", "group=\"orders\"")).isEqualTo(12);
		assertThat(sum(scrapes, "leader_election_node_state", "")).isZero();
		// The observations (docs/reference/observations.md): the follower's skipped calls
		// are skips, not successes, and the leader's runs completed.
		assertThat(sum(scrapes, "leader_election_leader_only_call_seconds_count",
				"election=\"default\",error=\"none\",outcome=\"skipped\""))
			.isPositive();
		assertThat(sum(scrapes, "leader_election_leader_only_call_seconds_count",
				"election=\"default\",error=\"none\",outcome=\"completed\""))
			.isPositive();
		assertThat(sum(scrapes, "leader_election_leadership_change_seconds_count",
				"change=\"granted\",election=\"default\""))
			.isEqualTo(1);
		assertThat(scrapes).contains("leader_election_node_state{state=\"waiting_for_database\"}",
				"leader_election_node_state{state=\"database_unreachable\"}",
				"leader_election_node_state{state=\"heartbeat_failing\"}",
				"leader_election_node_state{state=\"node_id_in_use\"}", "leader_election_heartbeat_slow_total",
				"leader_election_heartbeat_seconds_count{outcome=\"success\"}",
				"leader_election_heartbeat_failures_total{kind=\"unreachable\"}",
				"leader_election_transitions_total{election=\"default\",reason=\"none\",type=\"granted\"}",
				"leader_election_leader_only_skipped_total{election=\"default\"}",
				"leader_election_leader_only_overdue{election=\"default\"}",
				"leader_election_lock_acquisitions_total{lock=\"sample-report\"}");
		Path file = Path.of(SCRAPE);
		Files.createDirectories(file.getParent());
		Files.writeString(file, scrapes);
	}

	private SampleNode start(String nodeId, List<String> arguments) {
		SampleNode node = SampleNode.start(nodeId, arguments);
		this.nodes.add(node);
		return node;
	}

	private static int owned(SampleNode node) {
		return node.bean(PartitionGroups.class).group(PartitionedJob.GROUP).ownedPartitions().size();
	}

	private static String scrape(SampleNode node) {
		HttpResponse<String> response = node.send("GET", "/actuator/prometheus", null);
		assertThat(response.statusCode()).isEqualTo(200);
		return response.body();
	}

	/** The sum of the values of the series of the name whose labels contain the text. */
	private static double sum(String scrapes, String name, String labels) {
		double sum = 0;
		Matcher sample = SAMPLE.matcher(scrapes);
		while (sample.find()) {
			if (sample.group(1).equals(name) && (sample.group(2) != null && sample.group(2).contains(labels))) {
				sum += Double.parseDouble(sample.group(3));
			}
		}
		return sum;
	}

}
