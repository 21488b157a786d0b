package io.github.dbleader.benchmarks.integration;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.ConditionalOnJobBenchmark;
import io.github.dbleader.benchmarks.jobruns.JobRunsConfiguration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Spring Integration's leader election under benchmark:
 * {@link LockRegistryLeaderInitiator} on a {@link JdbcLockRegistry} whose lock lives for
 * the lease. The initiator re-acquires the lock every heart beat while it leads and tries
 * to take it every busy wait while it does not; both, and the registry's pause between
 * tries, are set to the renew interval.
 */
@SpringBootApplication
@EnableScheduling
@Import(JobRunsConfiguration.class)
public class IntegrationBenchmarkApplication {

	private static final Pattern INT_LOCK_DDL = Pattern.compile("CREATE TABLE INT_LOCK\\s*\\(.*?\\)[^;]*;",
			Pattern.DOTALL);

	public static void main(String[] args) {
		SpringApplication.run(IntegrationBenchmarkApplication.class, args);
	}

	@Bean
	DefaultLockRepository lockRepository(DataSource dataSource, JdbcTemplate jdbc, BenchmarkProperties properties) {
		createLockTable(jdbc);
		DefaultLockRepository repository = new DefaultLockRepository(dataSource, properties.getNodeId());
		repository.setTimeToLive((int) properties.getLease().toMillis());
		return repository;
	}

	@Bean
	JdbcLockRegistry lockRegistry(DefaultLockRepository lockRepository, BenchmarkProperties properties) {
		JdbcLockRegistry registry = new JdbcLockRegistry(lockRepository, properties.getLease());
		registry.setIdleBetweenTries(properties.getRenewInterval());
		return registry;
	}

	@Bean
	@ConditionalOnJobBenchmark
	LockRegistryLeaderInitiator leaderInitiator(JdbcLockRegistry lockRegistry, BenchmarkProperties properties) {
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(lockRegistry);
		initiator.setHeartBeatMillis(properties.getRenewInterval().toMillis());
		initiator.setBusyWaitMillis(properties.getRenewInterval().toMillis());
		return initiator;
	}

	/**
	 * Create {@code INT_LOCK} with the DDL Spring Integration ships for MySQL in its jar,
	 * if the table is missing.
	 * @param jdbc where to create it
	 */
	static void createLockTable(JdbcTemplate jdbc) {
		String script;
		try (InputStream in = DefaultLockRepository.class
			.getResourceAsStream("/org/springframework/integration/jdbc/schema-mysql.sql")) {
			if (in == null) {
				throw new IllegalStateException("schema-mysql.sql is missing from spring-integration-jdbc");
			}
			script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Matcher ddl = INT_LOCK_DDL.matcher(script);
		if (!ddl.find()) {
			throw new IllegalStateException("No CREATE TABLE INT_LOCK in spring-integration-jdbc's schema-mysql.sql");
		}
		String statement = ddl.group();
		jdbc.execute(
				statement.substring(0, statement.length() - 1).replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"));
	}

}
