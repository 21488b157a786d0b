package io.github.dbleader.autoconfigure.health;

import java.time.Clock;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.github.dbleader.election.lock.ClusterLocks;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@code leader} health contributor, one indicator per
 * election ({@code /actuator/health/leader/<election>}). Disable it with
 * {@code management.health.leader.enabled=false}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(ElectionService.class)
@ConditionalOnEnabledHealthIndicator("leader")
public final class LeaderElectionHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "leaderHealthIndicator", "leaderHealthContributor" })
	ElectionsHealthContributor leaderHealthContributor(ElectionService electionService,
			ObjectProvider<LeaderOnlyRuns> leaderOnlyRuns) {
		return new ElectionsHealthContributor(electionService, leaderOnlyRuns::getIfAvailable);
	}

	/**
	 * The {@code locks} indicator ({@code /actuator/health/locks}); disable it with
	 * {@code management.health.locks.enabled=false}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(ClusterLocks.class)
	@ConditionalOnEnabledHealthIndicator("locks")
	static class ClusterLocksHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = { "locksHealthIndicator", "locksHealthContributor" })
		ClusterLocksHealthIndicator locksHealthIndicator(ObjectProvider<ClusterLocks> clusterLocks) {
			return new ClusterLocksHealthIndicator(clusterLocks::getObject, Clock.systemUTC());
		}

	}

}
