package io.github.dbleader.autoconfigure.health;

import java.util.stream.Stream;

import io.github.dbleader.election.ElectionService;

import org.springframework.boot.health.contributor.CompositeHealthContributor;

/**
 * {@link CompositeHealthContributor} with one {@link ElectionHealthIndicator} per election
 * of the {@link ElectionService}, including elections joined after start-up, and one
 * {@link PartitionGroupHealthIndicator} per partition group, named
 * {@value #PARTITION_GROUP_PREFIX}{@code <group>}, instead of one entry per partition.
 */
public class ElectionsHealthContributor extends AbstractElectionsHealthContributor
		implements CompositeHealthContributor {

	/**
	 * Create a contributor.
	 * @param electionService the elections of this node
	 */
	public ElectionsHealthContributor(ElectionService electionService) {
		super(electionService);
	}

	@Override
	public Stream<Entry> stream() {
		return contributors().entrySet().stream().map((entry) -> new Entry(entry.getKey(), entry.getValue()));
	}

}
