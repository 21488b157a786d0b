package io.github.dbleader.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.dbleader.election.Election;
import io.github.dbleader.sample.SampleDatabase.Run;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Two nodes of the sample application in one JVM on the MySQL-protocol test database,
 * with a short lease (2s, renew every 400ms) and the job every 100ms: the job runs on one
 * node at a time, moves to the other node after a hand-over forced through the actuator,
 * and the runs it recorded never overlap in time between nodes, nor between terms (times
 * from the database clock).
 */
class SampleFailoverIntegrationTests extends AbstractSampleIntegrationTests {

	@Test
	void jobRunsOnOneNodeAtATimeAndMovesWithAForcedHandover() {
		List<SampleNode> nodes = startLeaderAndFollower("sample-a", "sample-b");
		SampleNode a = nodes.get(0);
		SampleNode b = nodes.get(1);
		Election electionA = a.election();
		Election electionB = b.election();

		// The leader runs the job; the follower's scheduler calls it too, and @LeaderOnly
		// skips it.
		await().atMost(Duration.ofSeconds(10)).until(() -> this.database.runsOf("sample-a") >= 5);
		await().atMost(Duration.ofSeconds(5)).until(() -> b.skippedJobCalls() >= 3);
		assertThat(electionB.isLeader()).isFalse();
		assertThat(this.database.runsOf("sample-b")).isZero();

		HttpResponse<String> handover = a.send("POST", "/actuator/leader/default", "{\"nodeId\":\"sample-b\"}");
		assertThat(handover.statusCode()).as(handover.body()).isEqualTo(200);
		// The leader carries the hand-over out at its next renewal: well within two renew
		// intervals on an idle machine; the bound leaves room for a loaded one.
		awaitLeader(electionB, electionA, Duration.ofSeconds(5));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.database.runsOf("sample-b") >= 5);
		double skippedOnA = a.skippedJobCalls();
		await().atMost(Duration.ofSeconds(5)).until(() -> a.skippedJobCalls() >= skippedOnA + 3);

		List<Run> runs = this.database.runs();
		assertNoOverlapBetweenNodes(runs);
		assertTermsDoNotInterleave(runs);
		// The job moved once, from A to B: all of A's runs come before all of B's.
		List<String> order = runs.stream().map(Run::nodeId).distinct().toList();
		assertThat(order).as("nodes in the order their runs started").containsExactly("sample-a", "sample-b");
		long lastTermOfA = runs.stream()
			.filter((run) -> run.nodeId().equals("sample-a"))
			.mapToLong(Run::term)
			.max()
			.orElseThrow();
		long firstTermOfB = runs.stream()
			.filter((run) -> run.nodeId().equals("sample-b"))
			.mapToLong(Run::term)
			.min()
			.orElseThrow();
		assertThat(firstTermOfB).as("B's first term").isGreaterThan(lastTermOfA);
	}

	/**
	 * Wait for {@code next} to lead, checking at every poll that it and {@code previous}
	 * never believe they lead at the same time.
	 */
	static void awaitLeader(Election next, Election previous, Duration bound) {
		await().atMost(bound).pollInterval(Duration.ofMillis(10)).until(() -> {
			boolean nextLeads = next.isLeader();
			assertThat(nextLeads && previous.isLeader()).as("two leaders at once").isFalse();
			return nextLeads;
		});
	}

	/**
	 * No run of one node overlaps a run of another in database time: a run that finished
	 * at the same millisecond another started does not overlap it.
	 */
	static void assertNoOverlapBetweenNodes(List<Run> runs) {
		for (int i = 0; i < runs.size(); i++) {
			for (int j = i + 1; j < runs.size(); j++) {
				Run first = runs.get(i);
				Run second = runs.get(j);
				if (!first.nodeId().equals(second.nodeId()) && first.startedAt() < second.finishedAt()
						&& second.startedAt() < first.finishedAt()) {
					fail("Runs of two nodes overlap in time: %s and %s", first, second);
				}
			}
		}
	}

	/**
	 * Each term belongs to one node, and every run of a term ends before the first run of
	 * any later term starts.
	 */
	static void assertTermsDoNotInterleave(List<Run> runs) {
		Map<Long, List<Run>> byTerm = new LinkedHashMap<>();
		runs.stream()
			.sorted((x, y) -> Long.compare(x.term(), y.term()))
			.forEach((run) -> byTerm.computeIfAbsent(run.term(), (term) -> new ArrayList<>()).add(run));
		Run lastOfPrevious = null;
		for (List<Run> term : byTerm.values()) {
			assertThat(term.stream().map(Run::nodeId).distinct()).as("nodes of term %d", term.get(0).term()).hasSize(1);
			Run first = term.stream().min((x, y) -> Long.compare(x.startedAt(), y.startedAt())).orElseThrow();
			if (lastOfPrevious != null && lastOfPrevious.finishedAt() > first.startedAt()) {
				fail("A run of term %d started before a run of the earlier term %d finished: %s, %s", first.term(),
						lastOfPrevious.term(), first, lastOfPrevious);
			}
			lastOfPrevious = term.stream().max((x, y) -> Long.compare(x.finishedAt(), y.finishedAt())).orElseThrow();
		}
	}

}
