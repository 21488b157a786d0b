package io.github.dbleader.autoconfigure.jobs;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.aop.LeaderOnlyAutoConfiguration;
import io.github.dbleader.autoconfigure.endpoint.EndpointErrors;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnlyRuns;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@link JobsEndpoint}.
 */
@AutoConfiguration(after = { LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(ElectionService.class)
@ConditionalOnAvailableEndpoint(JobsEndpoint.class)
public final class JobsEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	GuardedJobs leaderElectionGuardedJobs(ConfigurableListableBeanFactory beanFactory) {
		return new GuardedJobs(beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	JobsEndpoint jobsEndpoint(ElectionService electionService, GuardedJobs guardedJobs,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<LeaderOnlyRuns> leaderOnlyRuns) {
		// The bound of the other endpoints' writes: the election's statement timeout.
		return new JobsEndpoint(electionService, guardedJobs, beanFactory, leaderOnlyRuns.getIfAvailable(),
				electionService.settings().statementTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(JobsEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	JobsEndpointWebExtension jobsEndpointWebExtension(JobsEndpoint jobsEndpoint) {
		return new JobsEndpointWebExtension(jobsEndpoint);
	}

	@Bean
	@ConditionalOnMissingBean(name = "jobsEndpointErrors")
	EndpointErrors jobsEndpointErrors() {
		return new EndpointErrors(EndpointId.of("jobs"));
	}

}
