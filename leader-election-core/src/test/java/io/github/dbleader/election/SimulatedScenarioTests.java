package io.github.dbleader.election;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Scripted scenarios in the {@link Simulation}: the interleavings that a reading of the code
 * found, each played on the core's own classes with the checker watching every event. Each
 * failed on the code before its fix.
 */
class SimulatedScenarioTests {

	private static final long MS = 1_000_000L;

	/**
	 * Issue 40, finding 1: follower {@code b} is cut off the primary when the replica stops
	 * applying writes; leader {@code a} renews on the primary for 2.4 s; then the lagging
	 * replica is promoted, {@code b} reaches it and {@code a} does not. The replica shows
	 * exactly what {@code b} watched before its outage: its whole-lease watch must start again
	 * on the new server, or it takes over while {@code a} still believes.
	 */
	@Test
	void followerCutOffWhileTheReplicaLagsDoesNotTakeOverBeforeTheCutOffLeadersBeliefEnds() {
		Simulation simulation = new Simulation(40_1L, 3, 1);
		simulation.start();
		simulation.advanceTo(2_000 * MS);
		String leader = simulation.believers("e0").get(0);
		long cut = simulation.now();
		simulation.database().stopReplica();
		for (SimulatedNode node : simulation.nodes()) {
			if (!node.id().equals(leader)) {
				simulation.database().cut(node.id(), cut + 2_400 * MS);
			}
		}
		simulation.advanceTo(cut + 2_400 * MS);
		simulation.database().failOver();
		simulation.database().cut(leader, simulation.now() + 10_000 * MS);
		// The checker fails on the first event at which two nodes believe.
		assertThatNoException().isThrownBy(() -> simulation.advanceTo(cut + 12_000 * MS));
		assertThat(simulation.believers("e0")).hasSize(1).doesNotContain(leader);
	}

}
