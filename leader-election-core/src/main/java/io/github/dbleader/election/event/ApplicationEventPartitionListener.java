package io.github.dbleader.election.event;

import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.partition.PartitionGroups;
import io.github.dbleader.election.partition.PartitionListener;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes a {@link PartitionGainedEvent} or {@link PartitionLostEvent} for every
 * partition of every group this node gains or loses: add it to the node's
 * {@link PartitionGroups} ({@link PartitionGroups#addListener}). The auto-configuration
 * does.
 */
public class ApplicationEventPartitionListener implements PartitionListener {

	private final PartitionGroups groups;

	private final ApplicationEventPublisher publisher;

	/**
	 * Create a listener.
	 * @param groups the registry the events name as their source
	 * @param publisher where the events go
	 */
	public ApplicationEventPartitionListener(PartitionGroups groups, ApplicationEventPublisher publisher) {
		this.groups = groups;
		this.publisher = publisher;
	}

	@Override
	public void partitionGained(String group, int partition, long term) {
		this.publisher.publishEvent(new PartitionGainedEvent(this.groups, group, partition, term));
	}

	@Override
	public void partitionLost(String group, int partition, long term, RevocationReason reason) {
		this.publisher.publishEvent(new PartitionLostEvent(this.groups, group, partition, term, reason));
	}

}
