package io.github.dbleader.autoconfigure.partition;

import java.util.List;

import io.github.dbleader.autoconfigure.endpoint.EndpointRequestFilter;
import io.github.dbleader.autoconfigure.endpoint.EndpointRequestFilter.Parameter;
import io.github.dbleader.autoconfigure.endpoint.EndpointRequestFilter.Shape;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@link ManagementContextConfiguration @ManagementContextConfiguration} that puts an
 * {@link EndpointRequestFilter} in front of the {@code partitions} endpoint on a servlet web
 * server, so that a pin whose body is malformed or lacks a field, and an unpin without a
 * numeric {@code partition}, get a 400 that says so. Mapped as for the {@code leader}
 * endpoint: below the path of the {@code DispatcherServlet} that serves the actuator.
 */
@ManagementContextConfiguration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ OncePerRequestFilter.class, FilterRegistrationBean.class })
@ConditionalOnBean({ PartitionsEndpoint.class, PathMappedEndpoints.class })
@ConditionalOnAvailableEndpoint(endpoint = PartitionsEndpoint.class, exposure = EndpointExposure.WEB)
class PartitionsEndpointManagementContextConfiguration {

	private static final EndpointId PARTITIONS = EndpointId.of("partitions");

	static final Shape SHAPE = new Shape(
			List.of(new Parameter("partition", true, true), new Parameter("nodeId", false, true)), "",
			List.of(new Parameter("partition", true, true)));

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(DispatcherServletPath.class)
	@ConditionalOnBean(DispatcherServletPath.class)
	static class WebMvcPartitionsEndpointFilterConfiguration {

		@Bean
		FilterRegistrationBean<EndpointRequestFilter> partitionsEndpointRequestFilter(PathMappedEndpoints endpoints,
				DispatcherServletPath dispatcherServletPath) {
			return EndpointRequestFilter.registration(dispatcherServletPath.getRelativePath(endpoints.getPath(PARTITIONS)),
					SHAPE);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(type = "org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath")
	static class DefaultPartitionsEndpointFilterConfiguration {

		@Bean
		FilterRegistrationBean<EndpointRequestFilter> partitionsEndpointRequestFilter(PathMappedEndpoints endpoints) {
			return EndpointRequestFilter.registration(endpoints.getPath(PARTITIONS), SHAPE);
		}

	}

}
