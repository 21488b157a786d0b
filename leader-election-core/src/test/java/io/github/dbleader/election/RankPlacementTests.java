package io.github.dbleader.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leadership follows the ranks of the candidates ({@link ElectionService#setRank}), with
 * fake clocks and an in-memory repository: a candidate that outranks the leader and
 * campaigns asks for the lease, and the leader hands it over by the ordinary hand-over,
 * once; equal and lower ranks, candidates that stand down, operators' requests and the
 * partitions of a group are left alone. Lease L = 10s, renew interval R = 2s.
 */
class RankPlacementTests {

	private static final Duration L = Duration.ofSeconds(10);

	private static final Duration R = Duration.ofSeconds(2);

	private final ElectionSettings settings = ElectionSettings.of(L, R);

	private final InMemoryLeaseDatabase repository = new InMemoryLeaseDatabase();

	private final List<FakeNode> nodes = new ArrayList<>();

	@Test
	void aRollingDeployMovesLeadershipOnceToTheFirstReadyInstanceOfTheNewVersion() {
		FakeNode old1 = node("old-1", "1.4.2");
		FakeNode old2 = node("old-2", "1.4.2");
		old1.join("x");
		old2.join("x");
		rounds(3);
		assertThat(old1.leads("x")).isTrue();
		// The unlucky order: start one new instance, wait until it is ready, stop the
		// leader if it is of the old version, repeat.
		FakeNode new1 = node("new-1", "1.10.0");
		new1.join("x");
		rounds(4);
		assertThat(leaders("x")).containsExactly("new-1");
		FakeNode new2 = node("new-2", "1.10.0");
		new2.join("x");
		rounds(4);
		stop(old1);
		rounds(4);
		stop(old2);
		rounds(4);
		assertThat(leaders("x")).containsExactly("new-1");
		assertThat(this.repository.find("x").orElseThrow().leaderId()).isEqualTo("new-1");
		// One move: old-1 handed over to new-1, and nobody else was ever granted.
		assertThat(old1.listener.grantsAndRevocations()).hasSize(2).last().asString().endsWith("HANDED_OVER");
		assertThat(old2.listener.grantedTerms).isEmpty();
		assertThat(new1.listener.grantedTerms).hasSize(1);
		assertThat(new2.listener.grantedTerms).isEmpty();
	}

	@Test
	void equalRanksNeverMoveLeadership() {
		FakeNode a = node("a", "2.0.0");
		a.join("x");
		rounds(2);
		FakeNode b = node("b", "2.0.0");
		b.join("x");
		rounds(6);
		assertThat(leaders("x")).containsExactly("a");
		assertThat(statementsOf(b, 6)).doesNotContain("askToLead");
	}

	@Test
	void aRankSetAgainIsComparedAgain() {
		FakeNode a = node("a", "2.0.0");
		a.join("x");
		rounds(2);
		FakeNode b = node("b", "2.0.0");
		b.join("x");
		rounds(4);
		assertThat(leaders("x")).containsExactly("a");
		b.heartbeat.setRank("3.0.0");
		rounds(6);
		assertThat(leaders("x")).containsExactly("b");
	}

	@Test
	void aLowerRankNeverAsks() {
		FakeNode a = node("a", "2.0.0");
		a.join("x");
		rounds(2);
		FakeNode b = node("b", "2.0.0-SNAPSHOT");
		b.join("x");
		assertThat(statementsOf(b, 6)).doesNotContain("askToLead");
		assertThat(leaders("x")).containsExactly("a");
	}

	@Test
	void aCandidateThatStandsDownDoesNotAskAndAsksOnceItCampaignsAgain() {
		FakeNode a = node("a", "1");
		a.join("x");
		rounds(2);
		FakeNode b = node("b", "2");
		b.join("x").loop().campaign(false);
		rounds(4);
		assertThat(leaders("x")).containsExactly("a");
		b.loop("x").campaign(true);
		rounds(3);
		assertThat(leaders("x")).containsExactly("b");
	}

	@Test
	void anOperatorsPendingRequestIsCarriedOutNotReplaced() {
		FakeNode a = node("a", "1");
		FakeNode c = node("c", "1");
		a.join("x");
		c.join("x");
		rounds(2);
		assertThat(leaders("x")).containsExactly("a");
		FakeNode b = node("b", "2");
		b.join("x");
		assertThat(this.repository.requestHandover("x", "c")).isTrue();
		// b reads the request and does not replace it: c is handed the lease and takes
		// it; only then does b, which outranks c, ask.
		tick(b);
		assertThat(this.repository.find("x").orElseThrow().handoverTo()).isEqualTo("c");
		tick(a);
		tick(c);
		assertThat(leaders("x")).containsExactly("c");
		rounds(3);
		assertThat(leaders("x")).containsExactly("b");
	}

	@Test
	void thePartitionsOfAGroupDoNotMoveByRank() {
		String partition = ElectionService.PARTITION_NAME_PREFIX + "g:0";
		FakeNode a = node("a", "1");
		a.join(partition);
		a.join("x");
		rounds(2);
		FakeNode b = node("b", "2");
		b.join(partition);
		b.join("x");
		rounds(6);
		assertThat(leaders(partition)).containsExactly("a");
		assertThat(leaders("x")).containsExactly("b");
	}

	private List<String> leaders(String election) {
		return this.nodes.stream().filter((node) -> node.leads(election)).map((node) -> node.id).toList();
	}

	private FakeNode node(String id, String rank) {
		FakeNode node = new FakeNode(id, id + "-instance", this.repository, this.settings);
		node.heartbeat.setRank(rank);
		this.nodes.add(node);
		return node;
	}

	private void stop(FakeNode node) {
		node.stop();
		this.nodes.remove(node);
	}

	/** Rounds of every node, one renew interval apart. */
	private void rounds(int count) {
		for (int round = 0; round < count; round++) {
			List.copyOf(this.nodes).forEach(FakeNode::tick);
			elapse(R);
		}
	}

	private void tick(FakeNode node) {
		node.tick();
	}

	/** The statements of a node in rounds of every node, one renew interval apart. */
	private List<String> statementsOf(FakeNode node, int rounds) {
		List<String> sent = new ArrayList<>();
		for (int round = 0; round < rounds; round++) {
			for (FakeNode each : List.copyOf(this.nodes)) {
				int before = this.repository.statements().size();
				each.tick();
				if (each == node) {
					sent.addAll(this.repository.statements().subList(before, this.repository.statements().size()));
				}
			}
			elapse(R);
		}
		return sent;
	}

	private void elapse(Duration duration) {
		this.nodes.forEach((node) -> node.clock.advance(duration));
		this.repository.advanceDatabaseClock(duration);
	}

}
