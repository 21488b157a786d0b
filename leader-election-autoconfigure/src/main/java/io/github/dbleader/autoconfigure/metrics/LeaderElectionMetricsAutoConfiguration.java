package io.github.dbleader.autoconfigure.metrics;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.LeaderElectionProperties;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.github.dbleader.election.lock.ClusterLocks;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@link LeaderElectionMetrics meters} of the elections and
 * the {@link LockMetrics meters} of the cluster locks.
 */
@AutoConfiguration(after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
		SimpleMetricsExportAutoConfiguration.class, LeaderElectionAutoConfiguration.class })
@ConditionalOnClass({ MeterRegistry.class, MetricsAutoConfiguration.class })
@ConditionalOnBean({ MeterRegistry.class, ElectionService.class })
public final class LeaderElectionMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeaderElectionMetrics leaderElectionMetrics(ObjectProvider<ElectionService> electionService,
			LeaderElectionProperties properties, ObjectProvider<LeaderOnlyRuns> leaderOnlyRuns) {
		return new LeaderElectionMetrics(electionService::getObject,
				properties.getMetrics().determinePerElectionLimit(), leaderOnlyRuns::getIfAvailable);
	}

	@Bean
	@ConditionalOnMissingBean
	LockMetrics lockMetrics(ObjectProvider<ClusterLocks> clusterLocks) {
		return new LockMetrics(clusterLocks::getIfAvailable);
	}

}
