package io.github.dbleader.election.partition;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.github.dbleader.election.Candidate;
import org.jspecify.annotations.Nullable;

/**
 * The rule that says which node should own each partition of a group. Pure: no database,
 * no clock of its own; every node computes the same targets from the same inputs.
 *
 * <ul>
 * <li><b>Settled nodes only.</b> A live member receives partitions only once it has been
 * a member for the settle time (so that a flapping node never gets any), or if it joined
 * within the settle time of the oldest member (the nodes of a cluster that starts
 * together balance at once).
 * <li><b>Pins first.</b> A partition pinned to a live member goes to it, counted in its
 * load. A pin to a node that is not live is ignored until that node is back.
 * <li><b>Balanced.</b> The eligible nodes get {@code floor(P/N)} or {@code ceil(P/N)}
 * partitions each (pins can make a node exceed that; the others then share the rest).
 * <li><b>Sticky.</b> Every node keeps as many of the partitions it owns as its share
 * allows; the extra partition of a ceil share goes to the nodes that own the most. So a
 * join moves only about {@code P/(N+1)} partitions, all to the new node, and a leave
 * moves only the leaver's.
 * <li><b>Deterministic.</b> Which of its partitions a node keeps, and where a free
 * partition goes, is chosen by rendezvous hashing of partition and node id, not by
 * arrival order.
 * </ul>
 */
public final class PartitionAssignment {

	private final Duration settleTime;

	/**
	 * Create the rule.
	 * @param settleTime how long a node must have been a live member before it receives
	 * partitions
	 */
	public PartitionAssignment(Duration settleTime) {
		Objects.requireNonNull(settleTime, "settleTime must not be null");
		if (settleTime.isNegative()) {
			throw new IllegalArgumentException("settleTime must not be negative but was " + settleTime);
		}
		this.settleTime = settleTime;
	}

	/**
	 * @return how long a node must have been a live member before it receives partitions
	 */
	public Duration settleTime() {
		return this.settleTime;
	}

	/**
	 * Compute the target owner of every partition.
	 * @param partitions number of partitions P
	 * @param members the live members of the group, with the time each joined
	 * @param now the database clock's time (the members' times are the database's)
	 * @param owners current owner by partition; partitions that nobody owns are absent
	 * @param pins pinned node by partition
	 * @return the target owner of each partition, indexed by partition; an entry is
	 * {@code null} only when there is no live member
	 */
	public List<@Nullable String> targets(int partitions, Collection<Candidate> members, Instant now,
			Map<Integer, String> owners, Map<Integer, String> pins) {
		if (partitions < 1) {
			throw new IllegalArgumentException("partitions must be at least 1 but was " + partitions);
		}
		Set<String> live = new TreeSet<>();
		members.forEach((member) -> live.add(member.nodeId()));
		Instant oldest = members.stream().map(Candidate::firstSeen).min(Comparator.naturalOrder()).orElse(now);
		// Settled: a member for the settle time, or joined within the settle time of the
		// oldest member (the nodes of a starting cluster). Each node's status changes
		// once,
		// so that nodes that read at slightly different times never disagree for long.
		Set<String> eligible = new TreeSet<>();
		for (Candidate member : members) {
			Instant joined = member.firstSeen();
			if (!joined.plus(this.settleTime).isAfter(now) || !joined.isAfter(oldest.plus(this.settleTime))) {
				eligible.add(member.nodeId());
			}
		}
		@Nullable String[] targets = new String[partitions];
		if (live.isEmpty()) {
			return Arrays.asList(targets);
		}
		Map<String, Integer> pinned = new HashMap<>();
		int balanced = partitions;
		for (int partition = 0; partition < partitions; partition++) {
			String pin = pins.get(partition);
			if (pin != null && live.contains(pin)) {
				targets[partition] = pin;
				if (eligible.contains(pin)) {
					pinned.merge(pin, 1, Integer::sum);
				}
				else {
					// Pinned to a live node that has not settled: outside the balance.
					balanced--;
				}
			}
		}
		Map<String, List<Integer>> owned = new HashMap<>();
		for (int partition = 0; partition < partitions; partition++) {
			String owner = owners.get(partition);
			if (targets[partition] == null && owner != null && eligible.contains(owner)) {
				owned.computeIfAbsent(owner, (key) -> new ArrayList<>()).add(partition);
			}
		}
		Map<String, Integer> capacity = capacities(balanced, eligible, pinned, owned);
		Map<String, Integer> load = new HashMap<>(pinned);
		for (String node : eligible) {
			List<Integer> mine = new ArrayList<>(owned.getOrDefault(node, List.of()));
			mine.sort(byWeightFor(node));
			int keep = Math.max(0, capacity.get(node) - pinned.getOrDefault(node, 0));
			for (int i = 0; i < Math.min(keep, mine.size()); i++) {
				targets[mine.get(i)] = node;
				load.merge(node, 1, Integer::sum);
			}
		}
		for (int partition = 0; partition < partitions; partition++) {
			if (targets[partition] != null) {
				continue;
			}
			String best = null;
			long bestWeight = 0;
			for (String node : eligible) {
				if (load.getOrDefault(node, 0) < capacity.get(node)) {
					long weight = weight(partition, node);
					if (best == null || Long.compareUnsigned(weight, bestWeight) > 0) {
						best = node;
						bestWeight = weight;
					}
				}
			}
			if (best == null) {
				// Every share is full (pins took more than their share): the least
				// loaded.
				best = eligible.stream()
					.min(Comparator.comparingInt((String node) -> load.getOrDefault(node, 0)))
					.orElseThrow();
			}
			targets[partition] = best;
			load.merge(best, 1, Integer::sum);
		}
		return Arrays.asList(targets);
	}

	/**
	 * Each eligible node's share of the balanced partitions. A node pinned more than an
	 * even share keeps its pins and leaves the balance; the others share the rest: the
	 * ceil shares go to the nodes that own the most, so that as few partitions as
	 * possible move.
	 */
	private static Map<String, Integer> capacities(int balanced, Set<String> eligible, Map<String, Integer> pinned,
			Map<String, List<Integer>> owned) {
		Map<String, Integer> capacity = new HashMap<>();
		List<String> sharing = new ArrayList<>(eligible);
		int remaining = balanced;
		boolean changed = true;
		while (changed && !sharing.isEmpty()) {
			changed = false;
			int ceil = (remaining + sharing.size() - 1) / sharing.size();
			for (String node : List.copyOf(sharing)) {
				int pins = pinned.getOrDefault(node, 0);
				if (pins > ceil) {
					capacity.put(node, pins);
					sharing.remove(node);
					remaining -= pins;
					changed = true;
				}
			}
		}
		if (sharing.isEmpty()) {
			return capacity;
		}
		int share = Math.max(0, remaining) / sharing.size();
		int extra = Math.max(0, remaining) % sharing.size();
		sharing.sort(Comparator
			.comparingInt((String node) -> owned.getOrDefault(node, List.of()).size() + pinned.getOrDefault(node, 0))
			.reversed()
			.thenComparing(Comparator.naturalOrder()));
		for (int i = 0; i < sharing.size(); i++) {
			capacity.put(sharing.get(i), share + ((i < extra) ? 1 : 0));
		}
		return capacity;
	}

	private static Comparator<Integer> byWeightFor(String node) {
		return (a, b) -> Long.compareUnsigned(weight(b, node), weight(a, node));
	}

	/**
	 * Rendezvous weight of a partition on a node: the same on every JVM (no
	 * {@code String.hashCode()} seeds, no random).
	 * @param partition the partition
	 * @param node the node id
	 * @return the weight, compared as unsigned
	 */
	static long weight(int partition, String node) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : node.getBytes(StandardCharsets.UTF_8)) {
			hash ^= (b & 0xff);
			hash *= 0x100000001b3L;
		}
		return mix(hash ^ mix(partition + 0x9E3779B97F4A7C15L));
	}

	private static long mix(long value) {
		long z = value;
		z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
		z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
		return z ^ (z >>> 31);
	}

}
