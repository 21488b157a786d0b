package io.github.dbleader.autoconfigure.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import java.util.UUID;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.ClusterLockAdvisor;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockRepository;
import org.h2.Driver;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the {@link ClusterLock @ClusterLock} advice and its auto-configuration, on an
 * embedded database. A second {@link ClusterLocks} on the same database plays another
 * node.
 */
class ClusterLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(AopAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
						LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
		.withPropertyValues("leader-election.lease-duration=3s", "leader-election.renew-interval=200ms",
				"leader-election.node-id=here", "jobs.report.at-most-for=20s");

	@Test
	void configuresClusterLocksAndTheAdvisor() {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ClusterLocks.class).hasSingleBean(ClusterLockAdvisor.class);
			assertThat(context.getBean(ClusterLocks.class).getNodeId()).isEqualTo("here");
		});
	}

	@Test
	void aLockedMethodRunsWhereTheLockIsFreeAndIsSkippedWhereItIsTaken() {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class, JobsConfiguration.class)
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				ClusterLocks elsewhere = otherNode(context);
				assertThat(jobs.report()).isEqualTo("ran");
				HeldLock held = elsewhere.tryLock("report", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
				assertThat(jobs.report()).as("skipped while another node holds the lock").isNull();
				held.release();
				assertThat(jobs.report()).isEqualTo("ran");
				assertThat(jobs.runs()).containsExactly("report", "report");
			});
	}

	@Test
	void theDefaultNameIsClassAndMethodAndKeepUntilExpiryKeepsTheLock() {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class, JobsConfiguration.class)
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				ClusterLocks elsewhere = otherNode(context);
				assertThat(jobs.cleanUp()).isTrue();
				assertThat(elsewhere.tryLock("Jobs.cleanUp", Duration.ofSeconds(30), Duration.ZERO))
					.as("kept after the run")
					.isEmpty();
				assertThat(jobs.cleanUp()).as("skipped: the lock is kept until it expires").isFalse();
				assertThat(jobs.runs()).containsExactly("cleanUp");
			});
	}

	@Test
	void theLockedMethodReachesItsLockAndItsDurationsComeFromProperties() {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class, JobsConfiguration.class)
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				assertThat(jobs.report()).isEqualTo("ran");
				HeldLock lock = jobs.lastLock();
				assertThat(lock.name()).isEqualTo("report");
				assertThat(lock.isHeld()).as("released after the run").isFalse();
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				// 20s from the placeholder, released at once (no atLeastFor).
				assertThat(jdbc.queryForObject("SELECT expires_at - acquired_at FROM leader_election_lease"
						+ " WHERE election_name = 'lock:report'", Long.class))
					.isLessThan(20_000);
			});
	}

	@Test
	void anExceptionOfTheMethodIsThrownAndTheLockReleased() {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class, JobsConfiguration.class)
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				assertThatIllegalStateException().isThrownBy(jobs::throwing).withMessage("boom");
				assertThat(otherNode(context).tryLock("throwing", Duration.ofSeconds(30), Duration.ZERO)).isPresent();
			});
	}

	@Test
	void aKeptAliveRunOutlivesAtMostForAndIsInterruptedWhenItsLockIsLost() throws Exception {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class, JobsConfiguration.class)
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				// atMostFor is 1 s: kept alive, the run keeps its lock and commits fenced
				// work after 2.5 s.
				assertThat(jobs.longRun(Duration.ofMillis(2500))).isEqualTo("held");
				assertThat(jobs.unkept()).as("an empty maxFor keeps nothing alive").isFalse();
				CompletableFuture<String> run = CompletableFuture
					.supplyAsync(() -> jobs.longRun(Duration.ofSeconds(30)));
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> jdbc
						.queryForList("SELECT leader_id FROM leader_election_lease WHERE election_name ="
								+ " 'lock:long' AND expires_at > acquired_at + 1500", String.class)
						.contains("here"));
				otherNode(context).forceRelease("long");
				assertThat(run.get(5, TimeUnit.SECONDS)).isEqualTo("interrupted");
			});
	}

	@Test
	void anInvalidDurationFailsTheCall() {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class, JobsConfiguration.class)
			.run((context) -> {
				assertThatIllegalStateException().isThrownBy(context.getBean(Jobs.class)::invalid)
					.withMessageContaining("Invalid atMostFor 'soon'");
			});
	}

	@Test
	void aClusterLockMethodWithoutElectionFailsStartUp() {
		this.contextRunner.withUserConfiguration(JobsConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(ElectionRequiredException.class)
				.hasMessageContaining("@ClusterLock");
		});
	}

	@Test
	void noAdvisorWhenLeaderElectionIsDisabled() {
		this.contextRunner.withUserConfiguration(DatabaseConfiguration.class, JobsConfiguration.class)
			.withPropertyValues("leader-election.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(ClusterLockAdvisor.class).doesNotHaveBean(ClusterLocks.class);
				assertThat(context.getBean(Jobs.class).cleanUp()).isTrue();
			});
	}

	private static ClusterLocks otherNode(AssertableApplicationContext context) {
		return new ClusterLocks(context.getBean(LockRepository.class), "elsewhere");
	}

	@Configuration(proxyBeanMethods = false)
	static class DatabaseConfiguration {

		@Bean
		SimpleDriverDataSource dataSource() {
			return new SimpleDriverDataSource(new Driver(), "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"sa", "");
		}

		@Bean
		JdbcTemplate jdbcTemplate(SimpleDriverDataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		Jobs jobs(ObjectProvider<ClusterLocks> clusterLocks) {
			return new Jobs(clusterLocks);
		}

	}

	static class Jobs {

		private final List<String> runs = new ArrayList<>();

		private final ObjectProvider<ClusterLocks> clusterLocks;

		private HeldLock lastLock;

		Jobs(ObjectProvider<ClusterLocks> clusterLocks) {
			this.clusterLocks = clusterLocks;
		}

		public List<String> runs() {
			return this.runs;
		}

		public HeldLock lastLock() {
			return this.lastLock;
		}

		@ClusterLock(name = "report", atMostFor = "${jobs.report.at-most-for}")
		public String report() {
			this.runs.add("report");
			this.lastLock = this.clusterLocks.getObject().currentLock().orElseThrow();
			return "ran";
		}

		@ClusterLock(mode = ClusterLock.Mode.KEEP_UNTIL_EXPIRY)
		public boolean cleanUp() {
			this.runs.add("cleanUp");
			return true;
		}

		@ClusterLock(name = "throwing")
		public void throwing() {
			throw new IllegalStateException("boom");
		}

		@ClusterLock(atMostFor = "soon")
		public void invalid() {
		}

		@ClusterLock(name = "long", atMostFor = "1s", maxFor = "${jobs.long.max-for:1m}", interruptOnLoss = true)
		public String longRun(Duration duration) {
			HeldLock lock = this.clusterLocks.getObject().currentLock().orElseThrow();
			try {
				Thread.sleep(duration.toMillis());
			}
			catch (InterruptedException ex) {
				return "interrupted";
			}
			return lock.isHeld() ? lock.runFenced((term) -> "held") : "lost";
		}

		@ClusterLock(name = "unkept", atMostFor = "1s", maxFor = "${jobs.unkept.max-for:}")
		public boolean unkept() {
			HeldLock lock = this.clusterLocks.getObject().currentLock().orElseThrow();
			try {
				Thread.sleep(1200);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return lock.isHeld();
		}

	}

}
