package io.github.dbleader.autoconfigure.partition;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.event.ApplicationEventPartitionListener;
import io.github.dbleader.election.partition.PartitionGroups;
import io.github.dbleader.election.partition.PartitionPins;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of partition groups: the {@link PartitionGroups} registry with the
 * groups of {@code leader-election.partitions.<group>}, application events for gained and
 * lost partitions, and balancing started and stopped with the election.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnBean({ ElectionService.class, PartitionPins.class })
@EnableConfigurationProperties(PartitionProperties.class)
public final class PartitionAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PartitionGroups partitionGroups(ElectionService electionService, PartitionPins pins, PartitionProperties properties,
			ApplicationEventPublisher eventPublisher) {
		PartitionGroups groups = new PartitionGroups(pins);
		groups.addListener(new ApplicationEventPartitionListener(groups, eventPublisher));
		// Joining the elections of a group starts no thread and sends no statement before
		// the election service starts.
		properties.getPartitions()
			.forEach(
					(name, group) -> groups.create(electionService, name, group.getCount(), group.determineSettings()));
		return groups;
	}

	@Bean
	PartitionGroupsLifecycle partitionGroupsLifecycle(PartitionGroups groups) {
		return new PartitionGroupsLifecycle(groups);
	}

}
