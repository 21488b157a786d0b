package io.github.dbleader.autoconfigure.test;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import io.github.dbleader.election.partition.PartitionPins;

/**
 * The pins of partition groups in memory, so that partition groups in a test need no
 * lease table either.
 */
final class InMemoryPartitionPins implements PartitionPins {

	private final Map<String, Map<Integer, String>> pins = new HashMap<>();

	@Override
	public synchronized Map<Integer, String> pins(String group) {
		return Map.copyOf(this.pins.getOrDefault(group, Map.of()));
	}

	@Override
	public synchronized void pin(String group, int partition, String nodeId) {
		this.pins.computeIfAbsent(group, (key) -> new TreeMap<>()).put(partition, nodeId);
	}

	@Override
	public synchronized boolean unpin(String group, int partition) {
		Map<Integer, String> groupPins = this.pins.get(group);
		return groupPins != null && groupPins.remove(partition) != null;
	}

}
