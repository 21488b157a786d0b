package io.github.dbleader.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import static org.awaitility.Awaitility.await;

/**
 * Base of the tests that run several nodes of the sample application in one JVM on the
 * MySQL-protocol test database ({@link SampleDatabase}), with tables of their own that
 * are dropped afterwards. Every node gets a short lease (2s, renew every 400ms) and runs
 * the job every 100ms for 20ms.
 */
abstract class AbstractSampleIntegrationTests {

	/**
	 * Every node's timing. The statement timeout is 300ms rather than the default half
	 * renew interval, so that a moment of CPU starvation on a shared 2-core machine does
	 * not time out a renewal.
	 */
	private static final List<String> FAST = List.of("--leader-election.lease-duration=2s",
			"--leader-election.renew-interval=400ms", "--leader-election.statement-timeout=300ms",
			"--sample.job-interval=100ms", "--sample.job-duration=20ms", "--sample.lock-job-cron=* * * * * *",
			"--sample.lock-job-at-least-for=500ms", "--sample.lock-job-duration=100ms");

	private final List<SampleNode> nodes = new ArrayList<>();

	protected SampleDatabase database;

	@BeforeEach
	void connectToTheDatabase() {
		this.database = SampleDatabase.connect();
	}

	@AfterEach
	void stopTheNodes() {
		this.nodes.forEach(SampleNode::close);
		if (this.database != null) {
			this.database.dropTables();
		}
	}

	/**
	 * Start a node.
	 * @param nodeId its node id
	 * @return the running node, closed after the test
	 */
	protected SampleNode start(String nodeId) {
		SampleNode node = SampleNode.start(nodeId,
				Stream.concat(this.database.arguments().stream(), FAST.stream()).toList());
		this.nodes.add(node);
		return node;
	}

	/**
	 * Start a node and wait until it leads, then start another and wait until the first
	 * sees it as a live candidate.
	 * @param leader id of the node that leads
	 * @param follower id of the node that follows
	 * @return both nodes, the leader first
	 */
	protected List<SampleNode> startLeaderAndFollower(String leader, String follower) {
		SampleNode first = start(leader);
		await().atMost(Duration.ofSeconds(10)).until(first.election()::isLeader);
		SampleNode second = start(follower);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> first.election().candidates().stream().anyMatch((c) -> c.nodeId().equals(follower)));
		return List.of(first, second);
	}

}
