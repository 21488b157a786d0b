package io.github.dbleader.autoconfigure.endpoint;

import java.util.List;

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
 * {@link ManagementContextConfiguration @ManagementContextConfiguration} that puts the
 * {@link EndpointRequestFilter} in front of the {@code leader} endpoint on a servlet
 * web server: in the application's context, or in the management context when the
 * actuator runs on a port of its own ({@code management.server.port}).
 * <p>
 * The filter's URL patterns are the endpoint's path as the actuator maps it
 * ({@code management.endpoints.web.base-path} and
 * {@code management.endpoints.web.path-mapping.leader}), below the path of the
 * {@code DispatcherServlet} that serves the actuator in that context
 * ({@code spring.mvc.servlet.path} on the application's port, the root on a management port
 * of its own). URL patterns are relative to the context path, so
 * {@code server.servlet.context-path} and {@code management.server.base-path} need nothing
 * more.
 */
@ManagementContextConfiguration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ OncePerRequestFilter.class, FilterRegistrationBean.class })
@ConditionalOnBean({ LeaderEndpoint.class, PathMappedEndpoints.class })
@ConditionalOnAvailableEndpoint(endpoint = LeaderEndpoint.class, exposure = EndpointExposure.WEB)
class LeaderEndpointManagementContextConfiguration {

	private static final EndpointId LEADER = EndpointId.of("leader");

	/** A POST without a body forces leadership to the node that receives it. */
	static final EndpointRequestFilter.Shape SHAPE = new EndpointRequestFilter.Shape(
			List.of(new EndpointRequestFilter.Parameter("nodeId", false, false)), ", or no body for this node",
			List.of());

	private static FilterRegistrationBean<EndpointRequestFilter> filterRegistration(String path) {
		return EndpointRequestFilter.registration(path, SHAPE);
	}

	/**
	 * The actuator served by Spring MVC: the endpoint's path below the dispatcher servlet's.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(DispatcherServletPath.class)
	@ConditionalOnBean(DispatcherServletPath.class)
	static class WebMvcLeaderEndpointFilterConfiguration {

		@Bean
		FilterRegistrationBean<EndpointRequestFilter> leaderEndpointRequestFilter(PathMappedEndpoints endpoints,
				DispatcherServletPath dispatcherServletPath) {
			return filterRegistration(dispatcherServletPath.getRelativePath(endpoints.getPath(LEADER)));
		}

	}

	/**
	 * The actuator served without Spring MVC (on Jersey, say): the endpoint's path as the
	 * actuator maps it, relative to the context path only.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(type = "org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath")
	static class DefaultLeaderEndpointFilterConfiguration {

		@Bean
		FilterRegistrationBean<EndpointRequestFilter> leaderEndpointRequestFilter(PathMappedEndpoints endpoints) {
			return filterRegistration(endpoints.getPath(LEADER));
		}

	}

}
