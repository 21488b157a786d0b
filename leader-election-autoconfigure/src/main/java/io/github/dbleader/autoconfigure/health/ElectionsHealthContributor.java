package io.github.dbleader.autoconfigure.health;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.partition.PartitionGroup;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;

/**
 * {@link CompositeHealthContributor} with one {@link ElectionHealthIndicator} per election
 * of the {@link ElectionService}, including elections joined after start-up, and one
 * {@link PartitionGroupHealthIndicator} per partition group, named
 * {@value #PARTITION_GROUP_PREFIX}{@code <group>}, instead of one entry per partition.
 */
public class ElectionsHealthContributor implements CompositeHealthContributor {

	/** Prefix of the name of a partition group's entry. */
	public static final String PARTITION_GROUP_PREFIX = "partitions-";

	private final ElectionService electionService;

	/**
	 * Create a contributor.
	 * @param electionService the elections of this node
	 */
	public ElectionsHealthContributor(ElectionService electionService) {
		this.electionService = electionService;
	}

	@Override
	public @Nullable HealthContributor getContributor(String name) {
		Election election = this.electionService.findElection(name);
		if (election != null && PartitionGroup.groupOf(name) == null) {
			return new ElectionHealthIndicator(election);
		}
		if (name.startsWith(PARTITION_GROUP_PREFIX)) {
			List<Election> partitions = partitionsByGroup().get(name.substring(PARTITION_GROUP_PREFIX.length()));
			return (partitions != null) ? new PartitionGroupHealthIndicator(partitions) : null;
		}
		return null;
	}

	@Override
	public Stream<Entry> stream() {
		Stream<Entry> elections = this.electionService.elections()
			.stream()
			.filter((election) -> PartitionGroup.groupOf(election.name()) == null)
			.sorted(Comparator.comparing(Election::name))
			.map((election) -> new Entry(election.name(), new ElectionHealthIndicator(election)));
		Stream<Entry> groups = partitionsByGroup().entrySet()
			.stream()
			.map((group) -> new Entry(PARTITION_GROUP_PREFIX + group.getKey(),
					new PartitionGroupHealthIndicator(group.getValue())));
		return Stream.concat(elections, groups);
	}

	private Map<String, List<Election>> partitionsByGroup() {
		Map<String, List<Election>> groups = new TreeMap<>();
		for (Election election : this.electionService.elections()) {
			String group = PartitionGroup.groupOf(election.name());
			if (group != null) {
				groups.computeIfAbsent(group, (key) -> new ArrayList<>()).add(election);
			}
		}
		return groups;
	}

}
