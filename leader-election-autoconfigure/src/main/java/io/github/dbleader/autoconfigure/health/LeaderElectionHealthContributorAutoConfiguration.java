package io.github.dbleader.autoconfigure.health;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * of the {@code leader} health contributor, one indicator per election
 * ({@code /actuator/health/leader/<election>}). Disable it with
 * {@code management.health.leader.enabled=false}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(ElectionService.class)
@ConditionalOnEnabledHealthIndicator("leader")
public final class LeaderElectionHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "leaderHealthIndicator", "leaderHealthContributor" })
	ElectionsHealthContributor leaderHealthContributor(ElectionService electionService) {
		return new ElectionsHealthContributor(electionService);
	}

}
