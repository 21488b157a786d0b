package io.github.dbleader.election;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Scripted scenarios in the {@link Simulation}: the interleavings that a reading of the
 * code found, each played on the core's own classes with the checker watching every
 * event. Each failed on the code before its fix.
 */
class SimulatedScenarioTests {

	private static final long MS = 1_000_000L;

	/**
	 * Issue 40, finding 1: follower {@code b} is cut off the primary when the replica
	 * stops applying writes; leader {@code a} renews on the primary for 2.4 s; then the
	 * lagging replica is promoted, {@code b} reaches it and {@code a} does not. The
	 * replica shows exactly what {@code b} watched before its outage: its whole-lease
	 * watch must start again on the new server, or it takes over while {@code a} still
	 * believes.
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

	/**
	 * Issue 40, finding 3: a process reads that it is asked to lead while leading, and
	 * pauses for longer than a lease before it acts on that read (a re-acquire);
	 * meanwhile a second process with the same node id takes the id over. The first's
	 * re-acquire still matches the row (same node id, same term) when it resumes: the
	 * lease it reads back lives on no session of its own, and it must not believe, or it
	 * does alongside the second, which re-acquires the lease a lease after taking the id
	 * over.
	 */
	@Test
	void pausedProcessWhoseNodeIdWasTakenOverDoesNotBelieveInTheLeaseItReacquiresOnResuming() {
		Simulation simulation = new Simulation(40_3L, 1, 1);
		simulation.start();
		simulation.advanceTo(2_000 * MS);
		SimulatedNode first = simulation.nodes()
			.stream()
			.filter((node) -> node.believes("e0"))
			.findFirst()
			.orElseThrow();
		long pause = Simulation.LEASE.toNanos() + 2_000 * MS;
		first.pauseOnAnswer("findAll", pause);
		// As it resumes and re-acquires, it pauses again before its next refresh, which
		// would have told it that its node id is in use.
		simulation.at(simulation.now() + pause, "pause again before the next refresh",
				() -> first.pauseBeforeSending("heartbeat", 3_000 * MS));
		// Asked to lead while leading (recorded as an operator's POST to another node's
		// endpoint would record it), it re-acquires with a new term.
		simulation.database().tick();
		simulation.database().server().requestHandover("e0", first.id());
		simulation.at(simulation.now() + Simulation.LEASE.toNanos() + 200 * MS, "second instance",
				() -> simulation.startInstance(first.id()));
		assertThatNoException().isThrownBy(() -> simulation.advanceTo(simulation.now() + 12_000 * MS));
		// The second process leads in the end, and the first, paused again and again by
		// the node id in use, never did since it resumed.
		assertThat(simulation.believers("e0")).containsExactly(first.id());
		assertThat(first.believes("e0")).isFalse();
	}

}
