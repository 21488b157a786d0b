package io.github.dbleader.autoconfigure.endpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@link ManagementContextConfiguration @ManagementContextConfiguration} that puts the
 * {@link LeaderEndpointRequestFilter} in front of the {@code leader} endpoint on a servlet
 * web server: in the application's context, or in the management context when the
 * actuator runs on a port of its own.
 */
@ManagementContextConfiguration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ OncePerRequestFilter.class, FilterRegistrationBean.class })
@ConditionalOnBean({ LeaderEndpoint.class, PathMappedEndpoints.class })
@ConditionalOnAvailableEndpoint(endpoint = LeaderEndpoint.class, exposure = EndpointExposure.WEB)
class LeaderEndpointManagementContextConfiguration {

	@Bean
	FilterRegistrationBean<LeaderEndpointRequestFilter> leaderEndpointRequestFilter(PathMappedEndpoints endpoints) {
		FilterRegistrationBean<LeaderEndpointRequestFilter> registration = new FilterRegistrationBean<>(
				new LeaderEndpointRequestFilter());
		String path = endpoints.getPath(EndpointId.of("leader"));
		registration.addUrlPatterns(path, path + "/*");
		return registration;
	}

}
