package io.github.dbleader.benchmarks.jobruns;

import java.io.IOException;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Imported by every benchmark application: its settings, its job runs table, and the load
 * benchmark's hook when asked for.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(BenchmarkProperties.class)
public class JobRunsConfiguration {

	@Bean
	JobRunTable jobRunTable(JdbcTemplate jdbc, BenchmarkProperties properties) {
		return new JobRunTable(jdbc, properties.getJobRunsTable(), properties.getJobDuration());
	}

	@Bean
	@ConditionalOnProperty(name = "bench.business-load-port")
	PoolLoadHook poolLoadHook(JdbcTemplate jdbc, BenchmarkProperties properties) throws IOException {
		return new PoolLoadHook(jdbc, properties.getBusinessLoadPort());
	}

}
