package io.github.dbleader.autoconfigure;

import java.time.Duration;

import io.github.dbleader.election.Election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waits for leadership to move between two nodes of one election.
 */
public final class Handovers {

	private Handovers() {
	}

	/**
	 * Wait for {@code next} to lead, checking at every poll that it and {@code previous}
	 * never believe they lead at the same time.
	 * @param next the node that should end up leading
	 * @param previous the node that led before
	 * @param bound how long the move may take
	 */
	public static void awaitLeader(Election next, Election previous, Duration bound) {
		await().atMost(bound).pollInterval(Duration.ofMillis(10)).until(() -> {
			boolean nextLeads = next.isLeader();
			assertThat(nextLeads && previous.isLeader()).as("two leaders at once").isFalse();
			return nextLeads;
		});
	}

}
