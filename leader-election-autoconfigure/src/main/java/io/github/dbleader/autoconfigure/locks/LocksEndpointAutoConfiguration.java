package io.github.dbleader.autoconfigure.locks;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.endpoint.EndpointErrors;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.lock.ClusterLocks;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@link LocksEndpoint}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean({ ElectionService.class, ClusterLocks.class })
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
public final class LocksEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LocksEndpoint locksEndpoint(ClusterLocks clusterLocks, ElectionService electionService) {
		return new LocksEndpoint(clusterLocks, electionService.settings().statementTimeout());
	}

	@Bean
	@ConditionalOnMissingBean(name = "locksEndpointErrors")
	EndpointErrors locksEndpointErrors() {
		return new EndpointErrors(EndpointId.of("locks"));
	}

}
