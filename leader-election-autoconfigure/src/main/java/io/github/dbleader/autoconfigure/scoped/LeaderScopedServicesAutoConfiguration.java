package io.github.dbleader.autoconfigure.scoped;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.LeaderElectionProperties;
import io.github.dbleader.autoconfigure.partition.PartitionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.scoped.LeaderScopedService;
import io.github.dbleader.election.scoped.LeaderScopedServices;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of leader-scoped services: where the application has
 * {@link LeaderScopedService} beans, a {@link LeaderScopedServices} runner, which the
 * {@link ElectionService} tells of every change of this node's leadership, started once
 * the election service (and its partition groups) run and stopped before they stop, so
 * that the services end while this node still leads
 * ({@code leader-election.scoped-services.stop-timeout} bounds the wait).
 */
@AutoConfiguration(after = { LeaderElectionAutoConfiguration.class, PartitionAutoConfiguration.class })
@ConditionalOnBean({ ElectionService.class, LeaderScopedService.class })
public final class LeaderScopedServicesAutoConfiguration {

	@Bean
	LeaderScopedServices leaderScopedServices(LeaderElectionProperties properties) {
		// A listener of the election service: it must not need the service, nor the
		// application's services, which may need it; both come when it starts.
		return new LeaderScopedServices(properties.getScopedServices().determineStopTimeout());
	}

	@Bean
	LeaderScopedServicesLifecycle leaderScopedServicesLifecycle(LeaderScopedServices runner,
			ElectionService electionService, ListableBeanFactory beanFactory) {
		return new LeaderScopedServicesLifecycle(runner, electionService,
				() -> beanFactory.getBeansOfType(LeaderScopedService.class));
	}

}
