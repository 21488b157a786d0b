package io.github.dbleader.boot3.app;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

import io.github.dbleader.election.aop.LeaderOnly;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of a Spring Boot 3.5 application with the Boot 3 starter and the ShedLock
 * provider (declared first), its {@code @SchedulerLock} and {@code @LeaderOnly} jobs
 * unchanged, on one database, as issue #39's bar runs them: each trigger of the locked
 * job runs on one instance only, and the leader-only job runs on one instance only.
 */
class TwoInstancesOfASpringBoot3ApplicationTests {

	/** Every run of either job: which job, which instance, when it started and ended. */
	static final Queue<Run> runs = new ConcurrentLinkedQueue<>();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@AfterEach
	void stop() {
		this.instances.forEach(ConfigurableApplicationContext::close);
		runs.clear();
	}

	@Test
	void eachTriggerOfTheLockedJobAndTheLeaderOnlyJobRunOnOneInstanceOnly() {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
		this.instances.add(start("node-a"));
		this.instances.add(start("node-b"));
		// A leader within a lease or so; then six triggers of the per-second job.
		await().atMost(Duration.ofSeconds(20)).until(() -> leaderOnlyRuns().size() >= 5);
		Instant from = Instant.now();
		await().atMost(Duration.ofSeconds(20))
			.until(() -> runs.stream()
				.filter((run) -> run.job().equals("locked") && run.started().isAfter(from))
				.count() >= 6);
		this.instances.forEach(ConfigurableApplicationContext::close);
		List<Run> locked = runs.stream().filter((run) -> run.job().equals("locked")).toList();
		Map<Long, Set<String>> instancesBySecond = new HashMap<>();
		locked.forEach((run) -> instancesBySecond.computeIfAbsent(run.trigger(), (second) -> new TreeSet<>())
			.add(run.instance()));
		assertThat(instancesBySecond).as("the instances that ran each trigger of the locked job")
			.allSatisfy((second, instances) -> assertThat(instances).hasSize(1));
		for (Run run : locked) {
			assertThat(locked).as("runs of the locked job overlapping %s", run)
				.filteredOn((other) -> !other.instance().equals(run.instance()) && other.overlaps(run))
				.isEmpty();
		}
		assertThat(leaderOnlyRuns().stream().map(Run::instance).collect(Collectors.toSet()))
			.as("the instances that ran the leader-only job")
			.hasSize(1);
	}

	private static List<Run> leaderOnlyRuns() {
		return runs.stream().filter((run) -> run.job().equals("leader-only")).toList();
	}

	private static ConfigurableApplicationContext start(String nodeId) {
		return new SpringApplicationBuilder(Application.class)
			.properties("spring.datasource.url=jdbc:h2:mem:boot3-two-instances;DB_CLOSE_DELAY=-1",
					"spring.datasource.name=boot3-two-instances", "spring.main.banner-mode=off",
					"spring.main.web-application-type=none", "leader-election.node-id=" + nodeId,
					"leader-election.lease-duration=3s", "leader-election.renew-interval=500ms")
			.run();
	}

	// No component scan: the package holds the other test's application.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class Application {

		@Bean
		Jobs jobs(Environment environment) {
			return new Jobs(environment.getRequiredProperty("leader-election.node-id"));
		}

	}

	static class Jobs {

		private final String instance;

		Jobs(String instance) {
			this.instance = instance;
		}

		/** Each second, on every instance: ShedLock's annotation over our provider. */
		@Scheduled(cron = "* * * * * *")
		@SchedulerLock(name = "boot3-two-report", lockAtLeastFor = "500ms")
		public void report() throws InterruptedException {
			LockAssert.assertLocked();
			Instant started = Instant.now();
			Thread.sleep(100);
			runs.add(new Run("locked", this.instance, started, Instant.now()));
		}

		@Scheduled(fixedDelay = 100)
		@LeaderOnly("boot3-two-cleanup")
		public void cleanup() {
			Instant now = Instant.now();
			runs.add(new Run("leader-only", this.instance, now, now));
		}

	}

	/**
	 * One run of a job.
	 *
	 * @param job which job
	 * @param instance the node id of the instance that ran it
	 * @param started when it started
	 * @param ended when it ended
	 */
	record Run(String job, String instance, Instant started, Instant ended) {

		/**
		 * @return the cron second the run belongs to: both instances fire in the same one
		 */
		long trigger() {
			return this.started.getEpochSecond();
		}

		boolean overlaps(Run other) {
			return !this.ended.isBefore(other.started) && !other.ended.isBefore(this.started);
		}

	}

}
