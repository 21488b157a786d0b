package io.github.dbleader.election.partition;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.TakeOverPolicy;
import org.jspecify.annotations.Nullable;

/**
 * The partition groups of a node, by name. Each group joins its partitions' elections
 * with a listener of their own
 * ({@link ElectionService#partitionElection(String, TakeOverPolicy, LeadershipListener)}),
 * which tells the group's {@link PartitionListener listeners}, then this registry's,
 * which partitions this node gained and lost.
 */
public final class PartitionGroups {

	private final Map<String, PartitionGroup> groups = new ConcurrentHashMap<>();

	private final PartitionPins pins;

	private final MonotonicClock clock;

	private final PartitionGroup.Steps steps;

	private final List<PartitionListener> listeners = new CopyOnWriteArrayList<>();

	/**
	 * Create an empty registry.
	 * @param pins where pins are kept
	 */
	public PartitionGroups(PartitionPins pins) {
		this(pins, MonotonicClock.SYSTEM);
	}

	PartitionGroups(PartitionPins pins, MonotonicClock clock) {
		this(pins, clock, PartitionGroup.Steps.THREAD);
	}

	PartitionGroups(PartitionPins pins, MonotonicClock clock, PartitionGroup.Steps steps) {
		this.pins = Objects.requireNonNull(pins, "pins must not be null");
		this.clock = clock;
		this.steps = steps;
	}

	/**
	 * Create a group and join the elections of its partitions. It balances once
	 * {@link PartitionGroup#start() started}.
	 * @param service the node's election service
	 * @param name group name: letters, digits, '.', '_' or '-'
	 * @param count number of partitions
	 * @param settings how the group balances
	 * @return the group
	 * @throws IllegalStateException if a group of that name exists
	 */
	public synchronized PartitionGroup create(ElectionService service, String name, int count,
			PartitionSettings settings) {
		if (this.groups.containsKey(name)) {
			throw new IllegalStateException("Partition group '" + name + "' exists");
		}
		PartitionGroup group = new PartitionGroup(service, name, count, settings, this.pins, this.clock, this.steps,
				this.listeners);
		this.groups.put(name, group);
		return group;
	}

	/**
	 * Return a group by name.
	 * @param name group name
	 * @return the group, or {@code null}
	 */
	public @Nullable PartitionGroup group(String name) {
		return this.groups.get(name);
	}

	/**
	 * @return every group
	 */
	public Collection<PartitionGroup> groups() {
		return Collections.unmodifiableCollection(this.groups.values());
	}

	/**
	 * Close a group (see {@link PartitionGroup#close()}) and forget it.
	 * @param name group name
	 * @return whether there was such a group
	 */
	public synchronized boolean close(String name) {
		PartitionGroup group = this.groups.remove(name);
		if (group == null) {
			return false;
		}
		group.close();
		return true;
	}

	/**
	 * Add a listener for the partitions this node gains and loses in every group, those
	 * created later too. It is told after the group's own listeners.
	 * @param listener the listener
	 */
	public void addListener(PartitionListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
	}

}
