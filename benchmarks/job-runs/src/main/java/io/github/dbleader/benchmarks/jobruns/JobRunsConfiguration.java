package io.github.dbleader.benchmarks.jobruns;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Imported by every benchmark application: its settings and its job runs table.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(BenchmarkProperties.class)
public class JobRunsConfiguration {

	@Bean
	JobRunTable jobRunTable(JdbcTemplate jdbc, BenchmarkProperties properties) {
		return new JobRunTable(jdbc, properties.getJobRunsTable(), properties.getJobDuration());
	}

}
