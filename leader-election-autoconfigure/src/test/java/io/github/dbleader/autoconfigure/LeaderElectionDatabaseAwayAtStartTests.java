package io.github.dbleader.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.ElectionDataSourceTests.ReportJob;
import io.github.dbleader.autoconfigure.aop.LeaderOnlyAutoConfiguration;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint;
import io.github.dbleader.autoconfigure.health.ElectionHealthIndicator;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderElectionAutoConfiguration} when the database does not answer at
 * start-up: the application starts all the same, the election waits for the database (and
 * says so), leader-only work is skipped, and the node joins once the database answers.
 */
class LeaderElectionDatabaseAwayAtStartTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class))
		.withBean(ReportJob.class)
		.withPropertyValues("leader-election.lease-duration=1s", "leader-election.renew-interval=100ms",
				"leader-election.jdbc.initialize-schema=always");

	@ParameterizedTest
	@EnumSource(UrlKnown.class)
	void startsWaitsAndJoinsWhenTheDatabaseAnswers(UrlKnown urlKnown) {
		SwitchableDataSource dataSource = urlKnown
			.dataSource("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		this.contextRunner.withBean(DataSource.class, () -> dataSource).run((context) -> {
			assertThat(context).hasNotFailed();
			// Built at start-up either way: its store asks for the platform once the
			// database answers.
			assertThat(context.getBean(LeaseRepository.class)).isInstanceOf(JdbcLeaseRepository.class);
			ElectionService service = context.getBean(ElectionService.class);
			Election election = service.election("default");
			assertThat(service.isRunning()).isTrue();
			await().atMost(Duration.ofSeconds(5)).until(service::isWaitingForDatabase);
			assertThat(election.isDatabaseReachable()).isFalse();
			assertThat(new ElectionHealthIndicator(election).health().getStatus()).isEqualTo(Status.DOWN);
			assertThat(new ElectionHealthIndicator(election).health().getDetails()).containsEntry("error",
					"waiting for the database: the election has not started");
			try (LeaderEndpoint endpoint = new LeaderEndpoint(service, context.getBean(LeaseRepository.class))) {
				assertThat(endpoint.leader().waitingForDatabase()).isTrue();
			}
			// Leader-only work is skipped while the node waits: several lease durations.
			ReportJob job = context.getBean(ReportJob.class);
			await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(4)).until(() -> {
				job.run();
				return job.runs() == 0 && service.isWaitingForDatabase() && !election.isLeader();
			});
			dataSource.up();
			await().atMost(Duration.ofSeconds(5)).until(election::isLeader);
			assertThat(service.isWaitingForDatabase()).isFalse();
			assertThat(new ElectionHealthIndicator(election).health().getStatus()).isEqualTo(Status.UP);
			job.run();
			assertThat(job.runs()).isEqualTo(1);
			assertThat(tables(dataSource)).contains("LEADER_ELECTION_LEASE", "LEADER_ELECTION_CANDIDATE");
			// The lock repository, built at start-up too, or on first use where only the
			// database could tell its platform.
			assertThat(context.getBean(ClusterLocks.class).tryLock("report", Duration.ofSeconds(5), Duration.ZERO))
				.isPresent();
		});
	}

	@ParameterizedTest
	@EnumSource(UrlKnown.class)
	void startsAtOnceWhenTheDatabaseAnswers(UrlKnown urlKnown) {
		SwitchableDataSource dataSource = urlKnown
			.dataSource("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		dataSource.up();
		this.contextRunner.withBean(DataSource.class, () -> dataSource).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JdbcLeaseRepository.class);
			Election election = context.getBean(ElectionService.class).election("default");
			await().atMost(Duration.ofSeconds(5)).until(election::isLeader);
			assertThat(context.getBean(ElectionService.class).isWaitingForDatabase()).isFalse();
		});
	}

	@Test
	void startUpWithTheDatabaseAwayAsksItForItsPlatformOnce() {
		// A wrapper whose URL names no platform (p6spy, the AWS wrapper, JNDI): only the
		// database can tell it. The lease and lock repositories' beans and the election's
		// start share one attempt, so start-up waits for one connection timeout of the
		// application's pool, not three.
		SwitchableDataSource dataSource = UrlKnown.NO
			.dataSource("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		this.contextRunner.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("leader-election.lease-duration=20s", "leader-election.renew-interval=5s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ElectionService.class).isWaitingForDatabase()).isTrue();
				assertThat(dataSource.connectionRequests()).as("connections asked for at start-up").isEqualTo(1);
			});
	}

	@Test
	void embeddedDatabaseAwayAtStartGetsItsTablesWhenItAnswers() {
		// The default mode, embedded: whether the database is embedded needs its answer
		// too.
		SwitchableDataSource dataSource = UrlKnown.NO
			.dataSource("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		this.contextRunner.withBean(DataSource.class, () -> dataSource)
			.withPropertyValues("leader-election.jdbc.initialize-schema=embedded")
			.run((context) -> {
				ElectionService service = context.getBean(ElectionService.class);
				await().atMost(Duration.ofSeconds(5)).until(service::isWaitingForDatabase);
				dataSource.up();
				await().atMost(Duration.ofSeconds(5)).until(service.election("default")::isLeader);
				assertThat(tables(dataSource)).contains("LEADER_ELECTION_LEASE", "LEADER_ELECTION_CANDIDATE");
			});
	}

	private static List<String> tables(DataSource dataSource) {
		return new JdbcTemplate(dataSource).queryForList(
				"SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'", String.class);
	}

	/** Whether the {@code DataSource} tells its URL, from which the platform is known. */
	enum UrlKnown {

		YES {

			@Override
			SwitchableDataSource dataSource(String url) {
				return new SwitchableDataSourceWithUrl(url);
			}

		},

		NO {

			@Override
			SwitchableDataSource dataSource(String url) {
				return new SwitchableDataSource(url);
			}

		};

		abstract SwitchableDataSource dataSource(String url);

	}

	/** An H2 data source that refuses connections until {@link #up()}. */
	static class SwitchableDataSource extends AbstractDataSource {

		private final SimpleDriverDataSource target;

		private volatile boolean up;

		private final AtomicInteger connectionRequests = new AtomicInteger();

		SwitchableDataSource(String url) {
			this.target = new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", "");
		}

		void up() {
			this.up = true;
		}

		String url() {
			return this.target.getUrl();
		}

		int connectionRequests() {
			return this.connectionRequests.get();
		}

		@Override
		public Connection getConnection() throws SQLException {
			this.connectionRequests.incrementAndGet();
			if (!this.up) {
				throw new SQLTransientConnectionException("Connection refused (simulated)");
			}
			return this.target.getConnection();
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

	}

	/** A {@link SwitchableDataSource} that tells its URL, as connection pools do. */
	static class SwitchableDataSourceWithUrl extends SwitchableDataSource {

		SwitchableDataSourceWithUrl(String url) {
			super(url);
		}

		public String getUrl() {
			return url();
		}

	}

}
