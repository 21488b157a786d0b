package io.github.dbleader.benchmarks.shedlockprovider;

import io.github.dbleader.benchmarks.jobruns.JobRunsConfiguration;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A ShedLock application moved onto this starter: its {@code @EnableSchedulerLock} and
 * {@code @SchedulerLock} annotations stay as they were, and it defines no
 * {@code LockProvider}, so {@code leader-election-shedlock} auto-configures one over the
 * starter's cluster locks (database time, a fencing term per run). The lock table is the
 * starter's, created at start ({@code leader-election.jdbc.initialize-schema=always}).
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "${bench.lease}")
@Import(JobRunsConfiguration.class)
public class ShedLockProviderBenchmarkApplication {

	public static void main(String[] args) {
		SpringApplication.run(ShedLockProviderBenchmarkApplication.class, args);
	}

}
