package io.github.dbleader.autoconfigure.partition;

import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroups;

import org.springframework.context.SmartLifecycle;

/**
 * Starts balancing in every partition group once the election service runs, and stops it
 * before the election service stops (which releases the partitions, so that their targets
 * take them over within a renew interval or two). Groups created in code before the
 * context is refreshed are started too.
 */
class PartitionGroupsLifecycle implements SmartLifecycle {

	/** Right after the election service's phase: started after it, stopped before it. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 999;

	private final PartitionGroups groups;

	private volatile boolean running;

	PartitionGroupsLifecycle(PartitionGroups groups) {
		this.groups = groups;
	}

	@Override
	public void start() {
		this.groups.groups().forEach(PartitionGroup::start);
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.groups.groups().forEach(PartitionGroup::stop);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
