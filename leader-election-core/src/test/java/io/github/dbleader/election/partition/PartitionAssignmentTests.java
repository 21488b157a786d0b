package io.github.dbleader.election.partition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.dbleader.election.Candidate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link PartitionAssignment}: balance, and moves against the minimum, for
 * join, leave, crash, flap and pins; the clock is the database time handed in.
 */
class PartitionAssignmentTests {

	private static final Duration SETTLE = Duration.ofSeconds(10);

	private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

	private final PartitionAssignment assignment = new PartitionAssignment(SETTLE);

	private Instant now = START.plus(Duration.ofMinutes(1));

	@Test
	void startingClusterBalancesAllPartitions() {
		for (int nodes = 1; nodes <= 7; nodes++) {
			for (int partitions = 1; partitions <= 40; partitions++) {
				List<String> targets = targets(partitions, settled(nodes), Map.of(), Map.of());
				assertBalanced(targets, nodes);
			}
		}
	}

	@Test
	void joinMovesTheMinimumAllToTheNewNode() {
		for (int nodes = 1; nodes <= 6; nodes++) {
			for (int partitions = 1; partitions <= 64; partitions++) {
				Map<Integer, String> owners = balancedOwners(partitions, settled(nodes));
				List<Candidate> joined = new ArrayList<>(settled(nodes));
				joined.add(member("node-new", START));
				List<String> targets = targets(partitions, joined, owners, Map.of());
				assertBalanced(targets, nodes + 1);
				Map<Integer, String> moved = moves(owners, targets);
				assertThat(moved).as("%d partitions, %d nodes + 1", partitions, nodes)
					.hasSize(partitions / (nodes + 1));
				assertThat(moved.values()).allMatch("node-new"::equals);
			}
		}
	}

	@Test
	void twelvePartitionsGoSixSixThenFourFourFour() {
		Map<Integer, String> one = owners(targets(12, settled(1), Map.of(), Map.of()));
		assertThat(one.values()).containsOnly("node-0");
		Map<Integer, String> two = owners(targets(12, settled(2), one, Map.of()));
		assertThat(moves(one, two)).hasSize(6);
		assertBalanced(List.copyOf(two.values()), 2);
		Map<Integer, String> three = owners(targets(12, settled(3), two, Map.of()));
		assertThat(moves(two, three)).hasSize(4).containsValues("node-2");
		assertThat(count(three)).containsOnly(Map.entry("node-0", 4), Map.entry("node-1", 4), Map.entry("node-2", 4));
	}

	@Test
	void gracefulLeaveMovesOnlyTheLeaversPartitions() {
		for (int nodes = 2; nodes <= 6; nodes++) {
			for (int partitions = 1; partitions <= 64; partitions++) {
				List<Candidate> members = settled(nodes);
				Map<Integer, String> owners = balancedOwners(partitions, members);
				String leaver = members.get(nodes / 2).nodeId();
				List<Candidate> remaining = new ArrayList<>(members);
				remaining.remove(nodes / 2);
				// A graceful leave makes the leases vacant: the leaver owns nothing any
				// more.
				Map<Integer, String> vacated = new HashMap<>(owners);
				vacated.values().removeIf(leaver::equals);
				List<String> targets = targets(partitions, remaining, vacated, Map.of());
				assertBalanced(targets, nodes - 1);
				Map<Integer, String> moved = moves(owners, targets);
				assertThat(moved.keySet()).as("%d partitions, %d nodes - 1", partitions, nodes)
					.isEqualTo(partitionsOf(owners, leaver));
			}
		}
	}

	@Test
	void crashMovesOnlyTheCrashedNodesPartitions() {
		List<Candidate> members = settled(4);
		Map<Integer, String> owners = balancedOwners(30, members);
		// The crashed node's leases still name it until they expire; it is no longer
		// live.
		List<Candidate> remaining = members.subList(0, 3);
		List<String> targets = targets(30, remaining, owners, Map.of());
		assertBalanced(targets, 3);
		assertThat(moves(owners, targets).keySet()).isEqualTo(partitionsOf(owners, "node-3"));
	}

	@Test
	void newNodeReceivesNothingBeforeItSettles() {
		List<Candidate> members = new ArrayList<>(settled(2));
		Map<Integer, String> owners = balancedOwners(12, members);
		members.add(member("node-flapping", this.now.minus(SETTLE).plusMillis(1)));
		assertThat(moves(owners, targets(12, members, owners, Map.of()))).isEmpty();
		this.now = this.now.plusMillis(1);
		Map<Integer, String> moved = moves(owners, targets(12, members, owners, Map.of()));
		assertThat(moved).hasSize(4);
		assertThat(moved.values()).containsOnly("node-flapping");
	}

	@Test
	void flappingNodeThatRejoinsStartsItsSettleTimeAgain() {
		List<Candidate> members = new ArrayList<>(settled(3));
		Map<Integer, String> owners = balancedOwners(12, members);
		for (int flap = 0; flap < 10; flap++) {
			this.now = this.now.plusSeconds(3);
			List<Candidate> withFlapper = new ArrayList<>(members);
			withFlapper.add(member("node-flapping", this.now.minusSeconds(2)));
			assertThat(moves(owners, targets(12, withFlapper, owners, Map.of()))).isEmpty();
			assertThat(moves(owners, targets(12, members, owners, Map.of()))).isEmpty();
		}
	}

	@Test
	void nodesThatJoinWithinTheSettleTimeOfTheFirstBalanceAtOnce() {
		Instant first = this.now.minusSeconds(1);
		List<Candidate> members = List.of(member("node-a", first), member("node-b", first.plus(SETTLE)));
		assertBalanced(targets(12, members, Map.of(), Map.of()), 2);
		List<Candidate> late = List.of(member("node-a", first), member("node-b", first.plus(SETTLE).plusMillis(1)));
		assertThat(targets(12, late, Map.of(), Map.of())).containsOnly("node-a");
	}

	@Test
	void unsettledNodeLosesWhatItTookWhenASettledNodeIsThere() {
		// The only node, not settled yet, took every partition; a settled one now exists.
		List<Candidate> members = List.of(member("node-old", START), member("node-young", this.now));
		Map<Integer, String> owners = owners(Collections.nCopies(6, "node-young"));
		assertThat(targets(6, members, owners, Map.of())).containsOnly("node-old");
	}

	@Test
	void pinMovesThePinnedPartitionAndAsFewOthersAsBalanceNeeds() {
		List<Candidate> members = settled(3);
		Map<Integer, String> owners = balancedOwners(12, members);
		int partition = partitionsOf(owners, "node-0").iterator().next();
		List<String> targets = targets(12, members, owners, Map.of(partition, "node-1"));
		assertThat(targets.get(partition)).isEqualTo("node-1");
		assertBalanced(targets, 3);
		Map<Integer, String> moved = moves(owners, targets);
		// node-1 got one more, so it gives one back to node-0: two moves, the minimum.
		assertThat(moved).hasSize(2).containsEntry(partition, "node-1").containsValue("node-0");
	}

	@Test
	void pinnedPartitionsStayWhenBalancingAgain() {
		List<Candidate> members = settled(3);
		Map<Integer, String> pins = Map.of(0, "node-2", 1, "node-2", 2, "node-2");
		Map<Integer, String> owners = owners(targets(12, members, Map.of(), pins));
		assertThat(owners).containsEntry(0, "node-2").containsEntry(1, "node-2").containsEntry(2, "node-2");
		assertBalanced(List.copyOf(owners.values()), 3);
		List<Candidate> joined = new ArrayList<>(members);
		joined.add(member("node-3", START));
		List<String> targets = targets(12, joined, owners, pins);
		assertThat(targets.subList(0, 3)).containsOnly("node-2");
		assertBalanced(targets, 4);
		assertThat(moves(owners, targets)).hasSize(3);
	}

	@Test
	void pinsBeyondAnEvenShareLeaveTheRestBalancedAmongTheOthers() {
		Map<Integer, String> pins = new HashMap<>();
		for (int partition = 0; partition < 8; partition++) {
			pins.put(partition, "node-0");
		}
		Map<String, Integer> count = count(owners(targets(12, settled(3), Map.of(), pins)));
		assertThat(count).containsOnly(Map.entry("node-0", 8), Map.entry("node-1", 2), Map.entry("node-2", 2));
	}

	@Test
	void pinToANodeThatIsNotLiveIsIgnored() {
		List<String> targets = targets(12, settled(2), Map.of(), Map.of(3, "node-gone"));
		assertBalanced(targets, 2);
	}

	@Test
	void sameInputsInAnyOrderGiveTheSameTargets() {
		List<Candidate> members = settled(5);
		Map<Integer, String> owners = new HashMap<>(balancedOwners(50, members.subList(0, 3)));
		List<Candidate> reversed = new ArrayList<>(members);
		Collections.reverse(reversed);
		assertThat(targets(50, reversed, new TreeMap<>(owners), Map.of()))
			.isEqualTo(targets(50, members, owners, Map.of()));
	}

	@Test
	void noLiveMemberGivesNoTargets() {
		assertThat(targets(3, List.of(), Map.of(0, "node-0"), Map.of())).containsOnlyNulls();
	}

	private List<String> targets(int partitions, List<Candidate> members, Map<Integer, String> owners,
			Map<Integer, String> pins) {
		return this.assignment.targets(partitions, members, this.now, owners, pins);
	}

	private Map<Integer, String> balancedOwners(int partitions, List<Candidate> members) {
		Map<Integer, String> owners = owners(targets(partitions, members, Map.of(), Map.of()));
		assertBalanced(List.copyOf(owners.values()), members.size());
		return owners;
	}

	private static List<Candidate> settled(int nodes) {
		List<Candidate> members = new ArrayList<>();
		for (int node = 0; node < nodes; node++) {
			members.add(member("node-" + node, START));
		}
		return members;
	}

	private static Candidate member(String nodeId, Instant firstSeen) {
		return new Candidate(nodeId, firstSeen, firstSeen);
	}

	private static Map<Integer, String> owners(List<String> targets) {
		Map<Integer, String> owners = new TreeMap<>();
		for (int partition = 0; partition < targets.size(); partition++) {
			owners.put(partition, targets.get(partition));
		}
		return owners;
	}

	private static Map<Integer, String> moves(Map<Integer, String> before, Map<Integer, String> after) {
		return moves(before, List.copyOf(after.values()));
	}

	private static Map<Integer, String> moves(Map<Integer, String> before, List<String> after) {
		Map<Integer, String> moved = new TreeMap<>();
		for (int partition = 0; partition < after.size(); partition++) {
			if (!after.get(partition).equals(before.get(partition))) {
				moved.put(partition, after.get(partition));
			}
		}
		return moved;
	}

	private static java.util.Set<Integer> partitionsOf(Map<Integer, String> owners, String node) {
		java.util.Set<Integer> partitions = new java.util.TreeSet<>();
		owners.forEach((partition, owner) -> {
			if (owner.equals(node)) {
				partitions.add(partition);
			}
		});
		return partitions;
	}

	private static Map<String, Integer> count(Map<Integer, String> owners) {
		Map<String, Integer> count = new TreeMap<>();
		owners.values().forEach((owner) -> count.merge(owner, 1, Integer::sum));
		return count;
	}

	private static void assertBalanced(List<String> targets, int nodes) {
		assertThat(targets).doesNotContainNull();
		Map<String, Integer> count = new TreeMap<>();
		targets.forEach((owner) -> count.merge(owner, 1, Integer::sum));
		int partitions = targets.size();
		if (partitions >= nodes) {
			assertThat(count).as("owners of %d partitions", partitions).hasSize(nodes);
		}
		assertThat(count.values()).as("%d partitions on %d nodes: %s", partitions, nodes, count)
			.allSatisfy((owned) -> assertThat(owned).isBetween(partitions / nodes, (partitions + nodes - 1) / nodes));
	}

}
