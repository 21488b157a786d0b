package io.github.dbleader.sample;

import javax.sql.DataSource;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The three job runs tables: the leader-only job's ({@code sample.job-runs-table}, the
 * primary one), the cluster-lock job's ({@code sample.lock-job-runs-table}, qualified
 * {@value #LOCK_JOB_RUNS}) and the partitioned job's
 * ({@code sample.partition-job-runs-table}, qualified {@value #PARTITION_JOB_RUNS}).
 */
@Configuration(proxyBeanMethods = false)
class JobRunTables {

	/** Qualifier of the cluster-lock job's runs. */
	static final String LOCK_JOB_RUNS = "lockJobRuns";

	/** Qualifier of the partitioned job's runs. */
	static final String PARTITION_JOB_RUNS = "partitionJobRuns";

	@Bean
	@Primary
	JobRunRepository jobRunRepository(JdbcTemplate jdbc, DataSource dataSource, SampleProperties properties) {
		return new JobRunRepository(jdbc, dataSource, properties.getJobRunsTable(), "sample.job-runs-table");
	}

	@Bean
	@Qualifier(LOCK_JOB_RUNS)
	JobRunRepository lockJobRunRepository(JdbcTemplate jdbc, DataSource dataSource, SampleProperties properties) {
		return new JobRunRepository(jdbc, dataSource, properties.getLockJobRunsTable(), "sample.lock-job-runs-table");
	}

	@Bean
	@Qualifier(PARTITION_JOB_RUNS)
	JobRunRepository partitionJobRunRepository(JdbcTemplate jdbc, DataSource dataSource, SampleProperties properties) {
		return new JobRunRepository(jdbc, dataSource, properties.getPartitionJobRunsTable(),
				"sample.partition-job-runs-table");
	}

}
