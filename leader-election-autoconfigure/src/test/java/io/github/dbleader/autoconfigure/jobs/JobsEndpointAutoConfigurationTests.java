package io.github.dbleader.autoconfigure.jobs;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.aop.LeaderOnlyAutoConfiguration;
import io.github.dbleader.autoconfigure.endpoint.UnknownTargetException;
import io.github.dbleader.autoconfigure.jobs.elsewhere.ElsewhereJobsConfiguration;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint.JobDescriptor;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint.Outcome;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint.RunDescriptor;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyRun;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockRun;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JobsEndpointAutoConfiguration} and the {@link JobsEndpoint} on an
 * embedded database: the jobs it finds, and a run now on the leader, refused on a
 * follower (naming the leader), refused while another node holds the lock, and for an
 * unknown job. A second election service, or a second {@link ClusterLocks}, on the same
 * database plays another node.
 */
class JobsEndpointAutoConfigurationTests {

	private static final Duration AWAIT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class, JobsEndpointAutoConfiguration.class))
		.withUserConfiguration(JobsConfiguration.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
				"leader-election.node-id=here");

	@Test
	void configuresTheEndpointWhenExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs")
			.run((context) -> assertThat(context).hasSingleBean(JobsEndpoint.class)
				.hasSingleBean(JobsEndpointWebExtension.class)
				.hasSingleBean(GuardedJobs.class));
	}

	@Test
	void noWebExtensionWhenExposedOverJmxOnly() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=jobs")
			.run((context) -> assertThat(context).hasSingleBean(JobsEndpoint.class)
				.doesNotHaveBean(JobsEndpointWebExtension.class));
	}

	@Test
	void backsOffWhenNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(JobsEndpoint.class)
			.doesNotHaveBean(GuardedJobs.class));
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=jobs",
					"management.endpoint.jobs.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(JobsEndpoint.class));
	}

	@Test
	void backsOffWithoutElectionService() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=jobs", "leader-election.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(JobsEndpoint.class));
	}

	@Test
	void listsTheGuardedMethodsWithoutParametersOfTheBeans() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			JobsEndpoint.JobsDescriptor jobs = context.getBean(JobsEndpoint.class).jobs();
			assertThat(jobs.nodeId()).isEqualTo("here");
			assertThat(jobs.jobs()).containsOnlyKeys("reportJobs.report", "reportJobs.failing", "reportJobs.slow",
					"reportJobs.nightly", "reportJobs.cleanUp", "scheduledJobs.sweep");
			assertThat(jobs.jobs().get("reportJobs.report"))
				.isEqualTo(new JobDescriptor(Job.Kind.LEADER_ONLY, "reports", null, "ReportJobs.report"));
			assertThat(jobs.jobs().get("reportJobs.nightly"))
				.isEqualTo(new JobDescriptor(Job.Kind.CLUSTER_LOCK, null, "nightly", "ReportJobs.nightly"));
			assertThat(jobs.jobs().get("reportJobs.cleanUp")).as("the lock's default name")
				.extracting(JobDescriptor::lock)
				.isEqualTo("ReportJobs.cleanUp");
			assertThat(jobs.jobs().get("scheduledJobs.sweep")).as("a @Scheduled method of a @LeaderOnly class")
				.isEqualTo(new JobDescriptor(Job.Kind.LEADER_ONLY, "default", null, "ScheduledJobs.sweep"));
		});
	}

	@Test
	void runsALeaderOnlyJobOnTheLeaderThroughItsGuard() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			Election election = context.getBean(ElectionService.class).election("reports");
			await().atMost(AWAIT).until(election::isLeader);
			RunDescriptor run = context.getBean(JobsEndpoint.class).run("reportJobs.report");
			assertThat(run.outcome()).isEqualTo(Outcome.COMPLETED);
			assertThat(run.nodeId()).isEqualTo("here");
			assertThat(run.term()).isEqualTo(election.term());
			assertThat(run.startedAt()).isNotNull();
			assertThat(run.duration()).isNotNull();
			assertThat(run.reason()).isNull();
			assertThat(context.getBean(ReportJobs.class).runs()).containsExactly("report");
			assertThat(context.getBean(LeaderOnlyRuns.class).recentRuns("reports")).first().satisfies((recorded) -> {
				assertThat(recorded.method()).isEqualTo("ReportJobs.report");
				assertThat(recorded.term()).isEqualTo(run.term());
				assertThat(recorded.outcome()).isEqualTo(LeaderOnlyRun.Outcome.COMPLETED);
			});
			assertThat(webRun(context, "reportJobs.report").getStatus()).isEqualTo(200);
		});
	}

	@Test
	void aFailingJobAnswersFailedWithItsException() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			Election election = context.getBean(ElectionService.class).election("reports");
			await().atMost(AWAIT).until(election::isLeader);
			RunDescriptor run = context.getBean(JobsEndpoint.class).run("reportJobs.failing");
			assertThat(run.outcome()).isEqualTo(Outcome.FAILED);
			assertThat(run.term()).isEqualTo(election.term());
			assertThat(run.reason()).isEqualTo("java.lang.IllegalStateException: the report failed");
		});
	}

	@Test
	void aRunLongerThanTheWaitIsAnsweredRunningWithItsIdentityAndGoesOn() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			Election election = context.getBean(ElectionService.class).election("reports");
			await().atMost(AWAIT).until(election::isLeader);
			ReportJobs jobs = context.getBean(ReportJobs.class);
			JobsEndpoint endpoint = context.getBean(JobsEndpoint.class);
			RunDescriptor run = endpoint.run("reportJobs.slow");
			assertThat(run.outcome()).isEqualTo(Outcome.RUNNING);
			assertThat(run.term()).isEqualTo(election.term());
			assertThat(run.startedAt()).isNotNull();
			assertThat(run.reason()).startsWith("still running after 100 ms");
			RunDescriptor again = endpoint.run("reportJobs.slow");
			assertThat(again.outcome()).isEqualTo(Outcome.ALREADY_RUNNING);
			assertThat(again.startedAt()).isEqualTo(run.startedAt());
			assertThat(webRun(context, "reportJobs.slow").getStatus()).isEqualTo(409);
			jobs.release();
			await().atMost(AWAIT)
				.until(() -> context.getBean(LeaderOnlyRuns.class).recentRuns("reports").get(0).outcome(),
						(outcome) -> outcome == LeaderOnlyRun.Outcome.COMPLETED);
			assertThat(jobs.runs()).containsExactly("slow");
		});
	}

	@Test
	void aFollowerRefusesALeaderOnlyJobAndNamesTheLeader() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			ElectionService service = context.getBean(ElectionService.class);
			Election here = service.election("reports");
			await().atMost(AWAIT).until(here::isLeader);
			ElectionService other = otherNode(context, service);
			try {
				Election there = other.election("reports");
				other.start();
				await().atMost(AWAIT).until(() -> here.candidates().size() == 2);
				here.forceLeader("there");
				await().atMost(AWAIT).until(there::isLeader);
				await().atMost(AWAIT)
					.until(() -> here.lastSeenLease().map((seen) -> seen.lease().leaderId()).orElse(""),
							"there"::equals);
				RunDescriptor run = context.getBean(JobsEndpoint.class).run("reportJobs.report");
				assertThat(run.outcome()).isEqualTo(Outcome.NOT_LEADER);
				assertThat(run.leader()).isEqualTo("there");
				assertThat(run.term()).isNull();
				assertThat(run.reason())
					.isEqualTo("this node does not lead election 'reports'; node 'there' does: send the request there");
				assertThat(context.getBean(ReportJobs.class).runs()).isEmpty();
				assertThat(webRun(context, "reportJobs.report").getStatus()).isEqualTo(409);
			}
			finally {
				other.stop();
			}
		});
	}

	@Test
	void withoutALeaderTheRunIsRefused() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			Election here = context.getBean(ElectionService.class).election("reports");
			await().atMost(AWAIT).until(here::isLeader);
			here.release();
			RunDescriptor run = context.getBean(JobsEndpoint.class).run("reportJobs.report");
			assertThat(run.outcome()).isEqualTo(Outcome.NO_LEADER);
			assertThat(run.leader()).isNull();
			assertThat(run.reason()).isEqualTo("election 'reports' has no leader now; try again once one is elected");
			assertThat(context.getBean(ReportJobs.class).runs()).isEmpty();
		});
	}

	@Test
	void runsAClusterLockJobUnderItsLockAndIsRefusedWhileAnotherNodeHoldsIt() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			JobsEndpoint endpoint = context.getBean(JobsEndpoint.class);
			ClusterLocks clusterLocks = context.getBean(ClusterLocks.class);
			RunDescriptor run = endpoint.run("reportJobs.nightly");
			assertThat(run.outcome()).isEqualTo(Outcome.COMPLETED);
			assertThat(clusterLocks.recentRuns("nightly")).singleElement().satisfies((recorded) -> {
				assertThat(recorded.term()).isEqualTo(run.term());
				assertThat(recorded.outcome()).isEqualTo(LockRun.Outcome.COMPLETED);
			});
			HeldLock held = new ClusterLocks(context.getBean(LockRepository.class), "there")
				.tryLock("nightly", Duration.ofSeconds(30), Duration.ZERO)
				.orElseThrow();
			RunDescriptor refused = endpoint.run("reportJobs.nightly");
			assertThat(refused.outcome()).isEqualTo(Outcome.LOCK_HELD);
			assertThat(refused.term()).isNull();
			assertThat(refused.reason()).isEqualTo("lock 'nightly' is held elsewhere");
			assertThat(webRun(context, "reportJobs.nightly").getStatus()).isEqualTo(409);
			assertThat(context.getBean(ReportJobs.class).runs()).containsExactly("nightly");
			held.release();
		});
	}

	@Test
	void runsTheJobsOfAClassOutsideTheEndpointsReach() {
		this.contextRunner.withUserConfiguration(ElsewhereJobsConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=jobs")
			.run((context) -> {
				ElsewhereJobsConfiguration.RUNS.clear();
				Election election = context.getBean(ElectionService.class).election("reports");
				await().atMost(AWAIT).until(election::isLeader);
				JobsEndpoint endpoint = context.getBean(JobsEndpoint.class);
				assertThat(endpoint.run("hiddenJobs.report").outcome()).isEqualTo(Outcome.COMPLETED);
				assertThat(endpoint.run("hiddenJobs.tidy").outcome()).isEqualTo(Outcome.COMPLETED);
				assertThat(ElsewhereJobsConfiguration.RUNS).containsExactly("hidden report", "hidden tidy");
			});
	}

	@Test
	void anUnknownJobIsNotFound() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=jobs").run((context) -> {
			String message = "Job 'reportJobs.nothing' is unknown on this node; its jobs are [reportJobs.cleanUp,"
					+ " reportJobs.failing, reportJobs.nightly, reportJobs.report, reportJobs.slow, scheduledJobs.sweep]";
			JobsEndpoint endpoint = context.getBean(JobsEndpoint.class);
			assertThatExceptionOfType(UnknownTargetException.class).isThrownBy(() -> endpoint.run("reportJobs.nothing"))
				.withMessage(message);
			assertThatExceptionOfType(UnknownTargetException.class).isThrownBy(() -> endpoint.job("reportJobs.nothing"))
				.withMessage(message);
			assertThatExceptionOfType(UnknownTargetException.class)
				.isThrownBy(() -> webRun(context, "reportJobs.nothing"))
				.withMessage(message);
		});
	}

	private static WebEndpointResponse<?> webRun(AssertableApplicationContext context, String job) {
		return context.getBean(JobsEndpointWebExtension.class).run(job);
	}

	private static ElectionService otherNode(AssertableApplicationContext context, ElectionService service) {
		DataSource dataSource = context.getBean(DataSource.class);
		return new ElectionService(new JdbcLeaseRepository(dataSource, SqlDialect.forName("h2"), LeaseTables.defaults(),
				service.settings().statementTimeout()), service.settings(), "there", LeadershipListener.NONE);
	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		ReportJobs reportJobs() {
			return new ReportJobs();
		}

		@Bean
		ScheduledJobs scheduledJobs() {
			return new ScheduledJobs();
		}

	}

	static class ReportJobs {

		private final List<String> runs = new CopyOnWriteArrayList<>();

		private final CountDownLatch release = new CountDownLatch(1);

		// Through methods, not fields: the test holds the bean's proxy.
		public List<String> runs() {
			return this.runs;
		}

		public void release() {
			this.release.countDown();
		}

		@LeaderOnly("reports")
		public void report() {
			this.runs.add("report");
		}

		@LeaderOnly("reports")
		public void failing() {
			throw new IllegalStateException("the report failed");
		}

		@LeaderOnly("reports")
		public void slow() throws InterruptedException {
			this.release.await(10, TimeUnit.SECONDS);
			this.runs.add("slow");
		}

		@LeaderOnly("reports")
		public void withArgument(String day) {
			this.runs.add(day);
		}

		@ClusterLock(name = "nightly")
		public void nightly() {
			this.runs.add("nightly");
		}

		@ClusterLock
		public boolean cleanUp() {
			return true;
		}

		public void unguarded() {
			this.runs.add("unguarded");
		}

	}

	@LeaderOnly
	static class ScheduledJobs {

		@Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
		public void sweep() {
		}

		public String getName() {
			return "a getter, not a job";
		}

	}

}
