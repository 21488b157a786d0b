package io.github.dbleader.boot3.app;

import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.dbleader.autoconfigure.test.AutoConfigureLeaderElectionTest;
import io.github.dbleader.autoconfigure.test.LeaderElectionTestControl;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.shedlock.ClusterLockProvider;
import io.github.dbleader.shedlock.SchedulerLockContext;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.SpringVersion;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Spring Boot 3.5 application with the Boot 3 starter, the ShedLock provider (declared
 * first), ShedLock's Spring integration and the test support: it starts, a
 * {@code @SchedulerLock} job runs under a cluster lock of our provider, a
 * {@code @LeaderOnly} job runs once the test makes this node leader, and the class path
 * holds the Spring Boot 3 line's auto-configuration only (issue #39: with the Boot 4
 * line's jar ahead of it, the context failed to start on an unresolvable Boot 4 class).
 * The ShedLock provider's migration bridge is on, so its properties bind and its runs
 * take ShedLock's row on Boot 3.5 (and on ShedLock 6) too.
 */
@SpringBootTest(properties = {
		"spring.datasource.url=jdbc:h2:mem:boot3-app;DB_CLOSE_DELAY=-1;INIT=CREATE TABLE IF NOT EXISTS shedlock"
				+ " (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP(3), locked_at TIMESTAMP(3), locked_by VARCHAR(255))",
		"leader-election.shedlock.bridge.table-name=shedlock", "spring.main.banner-mode=off" })
@AutoConfigureLeaderElectionTest
class SpringBoot3ApplicationWithAllArtifactsTests {

	private static final Duration JOB_RUNS = Duration.ofSeconds(10);

	@Autowired
	LeaderElectionTestControl leaderElection;

	@Autowired
	ElectionService elections;

	@Autowired
	LockProvider lockProvider;

	@Autowired
	Jobs jobs;

	@Autowired
	JdbcTemplate jdbc;

	@Test
	void runsOnSpringBoot3() {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
		assertThat(SpringVersion.getVersion()).startsWith("6.2.");
	}

	@Test
	void holdsTheSpringBoot3LineOnly() throws IOException {
		// One copy of each auto-configuration class, and from the Boot 3 line's jars.
		assertThat(locations("io/github/dbleader/autoconfigure/LeaderElectionAutoConfiguration.class")).singleElement()
			.asString()
			.contains("leader-election-spring-boot-3-autoconfigure");
		assertThat(locations("io/github/dbleader/autoconfigure/test/AutoConfigureLeaderElectionTest.class"))
			.singleElement()
			.asString()
			.contains("leader-election-spring-boot-3-test");
		// Nor any other jar of the Boot 4 line (directories in the reactor, jars
		// otherwise).
		assertThat(System.getProperty("java.class.path")).doesNotContain("leader-election-autoconfigure")
			.doesNotContain("leader-election-starter")
			.doesNotContain("leader-election-test/")
			.doesNotContain("leader-election-test-");
	}

	@Test
	void schedulerLockJobRunsUnderAClusterLockOfOurProviderAndExtendsIt() {
		assertThat(this.lockProvider).isInstanceOf(ClusterLockProvider.class);
		await().atMost(JOB_RUNS).until(() -> this.jobs.lockedRuns().size() >= 2);
		List<LockedRun> runs = List.copyOf(this.jobs.lockedRuns());
		assertThat(runs).allSatisfy((run) -> {
			assertThat(run.term()).isPositive();
			assertThat(run.termAfterExtension()).isEqualTo(run.term());
		});
		assertThat(runs.get(1).term()).isGreaterThan(runs.get(0).term());
	}

	@Test
	void schedulerLockJobTakesShedLocksRowTooThroughTheMigrationBridge() {
		assertThat(((ClusterLockProvider) this.lockProvider).getBridge()).isPresent();
		await().atMost(JOB_RUNS).until(() -> !this.jobs.lockedRuns().isEmpty());
		assertThat(this.jdbc.queryForObject("SELECT locked_by FROM shedlock WHERE name = 'boot3-report'", String.class))
			.isEqualTo(this.elections.nodeId());
	}

	@Test
	void leaderOnlyJobRunsOnTheLeaderOnly() {
		assertThat(this.elections.election("boot3-cleanup").isLeader()).isFalse();
		assertThat(this.jobs.leaderTerms()).isEmpty();
		this.leaderElection.grant("boot3-cleanup", 7);
		await().atMost(JOB_RUNS).until(() -> !this.jobs.leaderTerms().isEmpty());
		assertThat(this.jobs.leaderTerms()).containsOnly(7L);
	}

	private static List<URL> locations(String resource) throws IOException {
		return Collections
			.list(SpringBoot3ApplicationWithAllArtifactsTests.class.getClassLoader().getResources(resource));
	}

	@SpringBootApplication(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class Application {

		@Bean
		Jobs jobs(ElectionService elections) {
			return new Jobs(elections);
		}

	}

	static class Jobs {

		private final ElectionService elections;

		/** The runs of the locked job. */
		private final Queue<LockedRun> lockedRuns = new ConcurrentLinkedQueue<>();

		/** The term of each run of the leader-only job: its election's. */
		private final Queue<Long> leaderTerms = new ConcurrentLinkedQueue<>();

		Jobs(ElectionService elections) {
			this.elections = elections;
		}

		// Methods, not fields: the bean is a proxy (@SchedulerLock, @LeaderOnly).
		public Queue<LockedRun> lockedRuns() {
			return this.lockedRuns;
		}

		public Queue<Long> leaderTerms() {
			return this.leaderTerms;
		}

		@Scheduled(fixedDelay = 20)
		@SchedulerLock(name = "boot3-report")
		public void report() {
			LockAssert.assertLocked();
			long term = SchedulerLockContext.currentTerm();
			// ShedLock's own extension API reaches our lock (ExtensibleLockProvider).
			LockExtender.extendActiveLock(Duration.ofSeconds(10), Duration.ZERO);
			this.lockedRuns.add(new LockedRun(term, SchedulerLockContext.currentTerm()));
		}

		@Scheduled(fixedDelay = 20)
		@LeaderOnly("boot3-cleanup")
		public void cleanup() {
			this.leaderTerms.add(this.elections.election("boot3-cleanup").term());
		}

	}

	/**
	 * One run of the locked job.
	 *
	 * @param term its lock's term
	 * @param termAfterExtension the term once ShedLock extended the lock
	 */
	record LockedRun(long term, long termAfterExtension) {
	}

}
