package io.github.dbleader.autoconfigure.health;

import java.util.Iterator;
import java.util.function.Supplier;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.NamedContributor;

/**
 * {@link CompositeHealthContributor} with one {@link ElectionHealthIndicator} per
 * election of the {@link ElectionService}, including elections joined after start-up, and
 * one {@link PartitionGroupHealthIndicator} per partition group, named
 * {@value #PARTITION_GROUP_PREFIX}{@code <group>}, instead of one entry per partition.
 * Spring Boot 3's form of the class of the same name in leader-election-autoconfigure:
 * Boot 3 lists a composite's entries through an iterator.
 */
public class ElectionsHealthContributor extends AbstractElectionsHealthContributor
		implements CompositeHealthContributor {

	/**
	 * Create a contributor whose indicators do not look at {@code @LeaderOnly} runs.
	 * @param electionService the elections of this node
	 */
	public ElectionsHealthContributor(ElectionService electionService) {
		this(electionService, () -> null);
	}

	/**
	 * Create a contributor.
	 * @param electionService the elections of this node
	 * @param leaderOnlyRuns supplies the record of the {@code @LeaderOnly} calls, whose
	 * runs past their {@code maxRunTime} make an election OUT_OF_SERVICE; may supply
	 * {@code null} for none
	 */
	public ElectionsHealthContributor(ElectionService electionService,
			Supplier<@Nullable LeaderOnlyRuns> leaderOnlyRuns) {
		super(electionService, leaderOnlyRuns);
	}

	@Override
	public Iterator<NamedContributor<HealthContributor>> iterator() {
		return contributors().entrySet()
			.stream()
			.map((entry) -> NamedContributor.of(entry.getKey(), entry.getValue()))
			.iterator();
	}

}
