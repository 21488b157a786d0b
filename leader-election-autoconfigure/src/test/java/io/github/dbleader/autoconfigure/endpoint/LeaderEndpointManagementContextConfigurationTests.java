package io.github.dbleader.autoconfigure.endpoint;

import java.util.Collection;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.ExposableEndpoint;
import org.springframework.boot.actuate.endpoint.Operation;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link LeaderEndpointManagementContextConfiguration}: the request filter's URL
 * patterns are the endpoint's path as the actuator maps it, below the dispatcher servlet's
 * path. The whole way through a real server, on the application's port and on a port of its
 * own: {@link LeaderEndpointManagementServerIntegrationTests}.
 */
class LeaderEndpointManagementContextConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withUserConfiguration(LeaderEndpointManagementContextConfiguration.class)
		.withPropertyValues("management.endpoints.web.exposure.include=leader")
		.withBean(LeaderEndpoint.class, () -> mock(LeaderEndpoint.class))
		.withBean(PathMappedEndpoints.class,
				() -> new PathMappedEndpoints("/manage", () -> List.of(new MappedEndpoint("leader", "elections"))));

	@Test
	void filtersTheEndpointBelowTheDispatcherServletPath() {
		this.contextRunner.withBean(DispatcherServletPath.class, () -> () -> "/api/")
			.run((context) -> assertThat(urlPatterns(context)).containsExactly("/api/manage/elections",
					"/api/manage/elections/*"));
	}

	@Test
	void filtersTheEndpointBelowARootDispatcherServlet() {
		this.contextRunner.withBean(DispatcherServletPath.class, () -> () -> "/")
			.run((context) -> assertThat(urlPatterns(context)).containsExactly("/manage/elections",
					"/manage/elections/*"));
	}

	@Test
	void filtersTheEndpointPathWithoutADispatcherServlet() {
		this.contextRunner.run((context) -> assertThat(urlPatterns(context)).containsExactly("/manage/elections",
				"/manage/elections/*"));
	}

	@Test
	void filtersTheEndpointPathWithoutSpringMvc() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(DispatcherServletPath.class))
			.run((context) -> assertThat(urlPatterns(context)).containsExactly("/manage/elections",
					"/manage/elections/*"));
	}

	@Test
	void noFilterUnlessTheEndpointIsExposedOverHttp() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
	}

	private static Collection<String> urlPatterns(AssertableWebApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(FilterRegistrationBean.class).getUrlPatterns();
	}

	/**
	 * An endpoint as the actuator discovers it, mapped to a path.
	 *
	 * @param id the endpoint id
	 * @param rootPath the path it is mapped to, below the base path
	 */
	private record MappedEndpoint(String id,
			String rootPath) implements ExposableEndpoint<Operation>, PathMappedEndpoint {

		@Override
		public EndpointId getEndpointId() {
			return EndpointId.of(this.id);
		}

		@Override
		public Access getDefaultAccess() {
			return Access.READ_ONLY;
		}

		// Spring Boot 3's ExposableEndpoint still asks for it (this class is also compiled by
		// leader-election-spring-boot-3-autoconfigure); Boot 4's has no such method.
		public boolean isEnableByDefault() {
			return true;
		}

		@Override
		public Collection<Operation> getOperations() {
			return List.of();
		}

		@Override
		public String getRootPath() {
			return this.rootPath;
		}

	}

}
