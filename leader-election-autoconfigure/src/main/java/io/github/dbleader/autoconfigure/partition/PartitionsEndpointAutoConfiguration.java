package io.github.dbleader.autoconfigure.partition;

import io.github.dbleader.autoconfigure.endpoint.EndpointErrors;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.partition.PartitionGroups;

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
 * Auto-configuration} for the {@link PartitionsEndpoint}.
 */
@AutoConfiguration(after = PartitionAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean({ PartitionGroups.class, ElectionService.class })
@ConditionalOnAvailableEndpoint(PartitionsEndpoint.class)
public final class PartitionsEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PartitionsEndpoint partitionsEndpoint(PartitionGroups groups, ElectionService electionService) {
		// The bound of the other endpoints' writes: the election's statement timeout.
		return new PartitionsEndpoint(groups, electionService.settings().statementTimeout());
	}

	@Bean
	@ConditionalOnMissingBean(name = "partitionsEndpointErrors")
	EndpointErrors partitionsEndpointErrors() {
		return new EndpointErrors(EndpointId.of("partitions"));
	}

}
