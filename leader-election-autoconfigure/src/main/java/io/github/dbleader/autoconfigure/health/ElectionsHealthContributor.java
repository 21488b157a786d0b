package io.github.dbleader.autoconfigure.health;

import java.util.Comparator;
import java.util.stream.Stream;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;

/**
 * {@link CompositeHealthContributor} with one {@link ElectionHealthIndicator} per election
 * of the {@link ElectionService}, including elections joined after start-up.
 */
public class ElectionsHealthContributor implements CompositeHealthContributor {

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
		return (election != null) ? new ElectionHealthIndicator(election) : null;
	}

	@Override
	public Stream<Entry> stream() {
		return this.electionService.elections()
			.stream()
			.sorted(Comparator.comparing(Election::name))
			.map((election) -> new Entry(election.name(), new ElectionHealthIndicator(election)));
	}

}
