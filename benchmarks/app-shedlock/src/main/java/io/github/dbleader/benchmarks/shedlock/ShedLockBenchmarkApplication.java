package io.github.dbleader.benchmarks.shedlock;

import java.time.Duration;
import java.util.concurrent.Executors;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.JobRunsConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.support.ShortKeepAlive;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * ShedLock under benchmark, configured as its README recommends for JDBC: the lock table
 * of its README, {@code usingDbTime()}, and {@code lockAtMostFor} set to the lease. With
 * {@code bench.mode=keep-alive} (the long-run benchmark) the provider is wrapped in
 * ShedLock's {@code KeepAliveLockProvider}.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "${bench.lease}")
@Import(JobRunsConfiguration.class)
public class ShedLockBenchmarkApplication {

	/** The MySQL table of ShedLock's README. */
	static final String LOCK_TABLE_DDL = "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, "
			+ "lock_until TIMESTAMP(3) NOT NULL, locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), "
			+ "locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";

	public static void main(String[] args) {
		SpringApplication.run(ShedLockBenchmarkApplication.class, args);
	}

	@Bean
	LockProvider lockProvider(JdbcTemplate jdbc, BenchmarkProperties properties, @Value("${bench.mode:}") String mode) {
		jdbc.execute(LOCK_TABLE_DDL);
		JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(
				JdbcTemplateLockProvider.Configuration.builder()
					.withJdbcTemplate(jdbc)
					.withLockedByValue(properties.getNodeId())
					.usingDbTime()
					.build());
		if (!"keep-alive".equals(mode)) {
			return provider;
		}
		// The long-run benchmark: ShedLock's keep-alive extends the lock by lockAtMostFor
		// every half lockAtMostFor while the run runs, on a daemon thread that does not
		// keep a terminated process alive.
		return ShortKeepAlive.keepAlive(provider, Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "shedlock-keep-alive");
			thread.setDaemon(true);
			return thread;
		}), Duration.ofSeconds(1));
	}

}
