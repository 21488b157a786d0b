package io.github.dbleader.election.partition;

import java.util.HashMap;
import java.util.Map;

/**
 * The test double of {@link PartitionPins}: a row per pin, as {@code JdbcPartitionPins}
 * keeps them, in memory. It passes the same contract ({@link PartitionPinsContract}) as
 * every database; the simulator keeps one per database server and copies it to the
 * replica.
 */
public final class InMemoryPartitionPins implements PartitionPins {

	private final Map<String, Map<Integer, String>> pins = new HashMap<>();

	@Override
	public Map<Integer, String> pins(String group) {
		return Map.copyOf(this.pins.getOrDefault(group, Map.of()));
	}

	@Override
	public void pin(String group, int partition, String nodeId) {
		this.pins.computeIfAbsent(group, (any) -> new HashMap<>()).put(partition, nodeId);
	}

	@Override
	public boolean unpin(String group, int partition) {
		Map<Integer, String> pinned = this.pins.get(group);
		return pinned != null && pinned.remove(partition) != null;
	}

	/**
	 * @return a copy, as a replica holds it
	 */
	public InMemoryPartitionPins copy() {
		InMemoryPartitionPins copy = new InMemoryPartitionPins();
		this.pins.forEach((group, pinned) -> copy.pins.put(group, new HashMap<>(pinned)));
		return copy;
	}

}
