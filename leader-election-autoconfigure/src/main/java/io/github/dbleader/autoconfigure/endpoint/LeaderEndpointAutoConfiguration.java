package io.github.dbleader.autoconfigure.endpoint;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.aop.LeaderOnlyRuns;

import org.springframework.beans.factory.ObjectProvider;
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
 * Auto-configuration} for the {@link LeaderEndpoint}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean({ ElectionService.class, LeaseRepository.class })
@ConditionalOnAvailableEndpoint(LeaderEndpoint.class)
public final class LeaderEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeaderEndpoint leaderEndpoint(ElectionService electionService, LeaseRepository leaseRepository,
			ObjectProvider<LeaderOnlyRuns> leaderOnlyRuns) {
		return new LeaderEndpoint(electionService, leaseRepository, electionService.settings().statementTimeout(),
				leaderOnlyRuns.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean(name = "leaderEndpointErrors")
	EndpointErrors leaderEndpointErrors() {
		return new EndpointErrors(EndpointId.of("leader"));
	}

}
