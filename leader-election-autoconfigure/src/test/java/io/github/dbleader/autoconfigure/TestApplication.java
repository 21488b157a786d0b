package io.github.dbleader.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.dbleader.test.TestDatabase;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A whole application with every auto-configuration on the test class path, for tests
 * that need real web servers or several nodes in one JVM. Nothing is component-scanned:
 * each test names its own beans.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class TestApplication {

	/**
	 * Start an application on a test database.
	 * @param database the database
	 * @param web whether to start a web server on a random port
	 * @param sources extra configuration classes
	 * @param properties extra properties, {@code name=value}
	 * @return the running context; close it after the test
	 */
	public static ConfigurableApplicationContext start(TestDatabase database, boolean web, Class<?>[] sources,
			String... properties) {
		// The empty rank, as the bare election services that tests run beside it have:
		// Spring Boot would take the application's version from the jar of the class with
		// main(), surefire's booter, and the application would then ask every such node
		// for its leases.
		List<String> all = new ArrayList<>(
				List.of("spring.datasource.url=" + database.url(), "spring.datasource.username=" + database.username(),
						"spring.datasource.password=" + database.password(), "spring.jmx.enabled=false",
						"server.port=0", "spring.main.banner-mode=off", "leader-election.rank="));
		all.addAll(List.of(properties));
		List<Class<?>> allSources = new ArrayList<>(List.of(TestApplication.class));
		allSources.addAll(List.of(sources));
		return new SpringApplicationBuilder(allSources.toArray(Class<?>[]::new))
			.web(web ? WebApplicationType.SERVLET : WebApplicationType.NONE)
			.properties(all.toArray(String[]::new))
			.run();
	}

}
