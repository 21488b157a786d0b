package io.github.dbleader.autoconfigure.health;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.github.dbleader.election.partition.PartitionGroup;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.HealthContributor;

/**
 * What {@link ElectionsHealthContributor} contributes: one
 * {@link ElectionHealthIndicator} per election of the {@link ElectionService}, including
 * elections joined after start-up, and one {@link PartitionGroupHealthIndicator} per
 * partition group. Kept apart from the contributor because Spring Boot 3 and 4 list a
 * composite's entries through different methods (an iterator, a stream); the entries and
 * the look-up by name are the same on both.
 */
abstract class AbstractElectionsHealthContributor {

	/** Prefix of the name of a partition group's entry. */
	public static final String PARTITION_GROUP_PREFIX = "partitions-";

	private final ElectionService electionService;

	private final Supplier<@Nullable LeaderOnlyRuns> leaderOnlyRuns;

	AbstractElectionsHealthContributor(ElectionService electionService,
			Supplier<@Nullable LeaderOnlyRuns> leaderOnlyRuns) {
		this.electionService = electionService;
		this.leaderOnlyRuns = leaderOnlyRuns;
	}

	private ElectionHealthIndicator indicator(Election election) {
		return new ElectionHealthIndicator(election, this.leaderOnlyRuns.get(), Clock.systemUTC());
	}

	/**
	 * The entry of an election or of a partition group.
	 * @param name the election's name, or {@value #PARTITION_GROUP_PREFIX} and the
	 * group's name
	 * @return its entry, or {@code null} if there is none of that name
	 */
	public @Nullable HealthContributor getContributor(String name) {
		Election election = this.electionService.findElection(name);
		if (election != null && PartitionGroup.groupOf(name) == null) {
			return indicator(election);
		}
		if (name.startsWith(PARTITION_GROUP_PREFIX)) {
			List<Election> partitions = partitionsByGroup().get(name.substring(PARTITION_GROUP_PREFIX.length()));
			return (partitions != null) ? new PartitionGroupHealthIndicator(partitions) : null;
		}
		return null;
	}

	/**
	 * All entries: the elections by name, then the partition groups by name.
	 * @return the entries by name, in that order
	 */
	protected Map<String, HealthContributor> contributors() {
		Map<String, HealthContributor> entries = new LinkedHashMap<>();
		this.electionService.elections()
			.stream()
			.filter((election) -> PartitionGroup.groupOf(election.name()) == null)
			.sorted(Comparator.comparing(Election::name))
			.forEach((election) -> entries.put(election.name(), indicator(election)));
		partitionsByGroup().forEach((group, partitions) -> entries.put(PARTITION_GROUP_PREFIX + group,
				new PartitionGroupHealthIndicator(partitions)));
		return entries;
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
