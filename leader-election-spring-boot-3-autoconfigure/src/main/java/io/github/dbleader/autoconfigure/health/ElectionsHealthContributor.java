package io.github.dbleader.autoconfigure.health;

import java.util.Iterator;

import io.github.dbleader.election.ElectionService;

import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.NamedContributor;

/**
 * {@link CompositeHealthContributor} with one {@link ElectionHealthIndicator} per election
 * of the {@link ElectionService}, including elections joined after start-up, and one
 * {@link PartitionGroupHealthIndicator} per partition group, named
 * {@value #PARTITION_GROUP_PREFIX}{@code <group>}, instead of one entry per partition.
 * Spring Boot 3's form of the class of the same name in leader-election-autoconfigure: Boot 3
 * lists a composite's entries through an iterator.
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
	public Iterator<NamedContributor<HealthContributor>> iterator() {
		return contributors().entrySet()
			.stream()
			.map((entry) -> NamedContributor.of(entry.getKey(), entry.getValue()))
			.iterator();
	}

}
