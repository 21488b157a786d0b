package io.github.dbleader.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rolling deploys of the sample, from outside, as a Kubernetes Deployment rolls them out:
 * start one instance of the new version, wait until it is ready, stop (SIGTERM) one of
 * the old version, repeat until none of the old is left. The order is the unlucky one: a
 * leader of the old version is always the next one stopped. Each instance's version is
 * its {@code spring.application.version}, its rank by default. Every deploy must move
 * leadership of {@code default} once, from the old version to the new, with no
 * overlapping runs of its job and no stale commits.
 *
 * <p>
 * CI runs one deploy of three instances; {@code -Dfault.rolling.instances=5
 * -Dfault.rolling.deploys=3} runs the three deploys of five.
 */
class RollingDeployScenariosIntegrationTests {

	private static final int INSTANCES = Integer.getInteger("fault.rolling.instances", 3);

	private static final int DEPLOYS = Integer.getInteger("fault.rolling.deploys", 1);

	@Test
	void eachRollingDeployMovesLeadershipOnceFromTheOldVersionToTheNew() {
		FaultDatabase database = FaultDatabase.forThisFork();
		try (Cluster cluster = new Cluster(database)) {
			Map<SampleNode, Integer> versions = new HashMap<>();
			cluster.start(INSTANCES, version(0)).forEach((node) -> versions.put(node, 0));
			cluster.awaitSteady(INSTANCES);
			long firstRunsFrom = database.now();
			List<String> summary = new ArrayList<>();
			for (int deploy = 1; deploy <= DEPLOYS; deploy++) {
				long from = database.now();
				String before = leaderOf(cluster);
				for (int step = 0; step < INSTANCES; step++) {
					SampleNode fresh = cluster.start(1, version(deploy)).get(0);
					versions.put(fresh, deploy);
					int oldVersion = deploy - 1;
					List<SampleNode> old = cluster.live()
						.stream()
						.filter((node) -> versions.get(node) == oldVersion)
						.toList();
					String leader = leaderOf(cluster);
					SampleNode victim = old.stream()
						.filter((node) -> node.id().equals(leader))
						.findFirst()
						.orElse(old.get(0));
					victim.terminate();
				}
				SampleNode leader = cluster.awaitSteady(INSTANCES);
				long to = database.now();
				List<String> leaders = leadersSince(cluster, from, to);
				summary.add("deploy " + deploy + ": " + before + " -> "
						+ String.join(" -> ", leaders.subList(1, leaders.size())));
				assertThat(versions.get(leader)).as("version of the leader after deploy %d", deploy).isEqualTo(deploy);
				assertThat(leaders).as("leaders of deploy %d, in order", deploy).hasSize(2);
			}
			List<JobRuns.Run> runs = JobRuns.since(database, firstRunsFrom);
			System.out.printf("[rolling] %d deploys of %d instances: %s; %d job runs%n", DEPLOYS, INSTANCES, summary,
					runs.size());
			assertThat(runs).isNotEmpty();
			assertThat(JobRuns.overlaps(runs)).as("overlapping runs").isEmpty();
			assertThat(JobRuns.staleWrites(runs, cluster.monitor().terms())).as("stale commits").isEmpty();
		}
	}

	private static List<String> version(int deploy) {
		return List.of("--spring.application.version=1." + deploy + ".0");
	}

	/** The node the lease names now, or {@code null}. */
	private static String leaderOf(Cluster cluster) {
		long now = cluster.database().now();
		await("the lease seen since " + now).atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> cluster.monitor().latest().filter((sighting) -> sighting.seenAt() >= now).isPresent());
		return cluster.monitor().latest().orElseThrow().leaderId();
	}

	/**
	 * The holders of the lease in a window, in order: the one at its start, then each
	 * that took over (a vacant lease in between is not a holder).
	 */
	private static List<String> leadersSince(Cluster cluster, long from, long to) {
		List<String> leaders = new ArrayList<>();
		List<LeaseMonitor.Sighting> all = cluster.monitor().since(0);
		String atStart = null;
		for (LeaseMonitor.Sighting sighting : all) {
			if (sighting.seenAt() < from && sighting.leaderId() != null) {
				atStart = sighting.leaderId();
			}
		}
		leaders.add(atStart);
		for (LeaseMonitor.Sighting sighting : all) {
			if (sighting.seenAt() >= from && sighting.seenAt() <= to && sighting.leaderId() != null
					&& !Objects.equals(leaders.get(leaders.size() - 1), sighting.leaderId())) {
				leaders.add(sighting.leaderId());
			}
		}
		return leaders;
	}

}
