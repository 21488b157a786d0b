package io.github.dbleader.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A ShedLock-only application, as one coming from ShedLock has it
 * ({@code @EnableSchedulerLock}, {@code @Scheduled} + {@code @SchedulerLock}, no
 * {@code LockProvider} bean of its own), on three nodes in one JVM on the MySQL-protocol
 * test database (MariaDB in CI): the locked job runs on one node at a time, on more than
 * one node over time, and each run's fenced write carries a term greater than that of
 * every earlier run.
 */
class SchedulerLockNodesIntegrationTests {

	private static final TestDatabase DATABASE = TestDatabase.MYSQL;

	private static final LeaseTables TABLES = new LeaseTables("shedlock_nodes_lease", "shedlock_nodes_candidate");

	/** The runs of every node, as they ended. */
	private static final Queue<Run> runs = new ConcurrentLinkedQueue<>();

	private final List<ConfigurableApplicationContext> nodes = new ArrayList<>();

	private HikariDataSource dataSource;

	@AfterEach
	void stop() {
		this.nodes.forEach(ConfigurableApplicationContext::close);
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	@Test
	void aLockedJobRunsOnOneNodeAtATimeWithAGreaterTermEachRun() {
		this.dataSource = DATABASE.dataSource(2);
		DATABASE.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(this.dataSource, SqlDialect.forName(DATABASE.platform()), TABLES);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("DROP TABLE IF EXISTS shedlock_nodes_ticks");
		jdbc.execute("CREATE TABLE shedlock_nodes_ticks (term BIGINT PRIMARY KEY, node_id VARCHAR(64) NOT NULL)");
		runs.clear();
		for (int node = 1; node <= 3; node++) {
			this.nodes.add(start("node-" + node));
		}
		assertThat(this.nodes)
			.allSatisfy((node) -> assertThat(node.getBean(LockProvider.class)).isInstanceOf(ClusterLockProvider.class));
		await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() >= 30);
		this.nodes.forEach(ConfigurableApplicationContext::close);
		List<Run> ended = runs.stream().sorted(Comparator.comparingLong(Run::startedAt)).toList();
		for (int i = 1; i < ended.size(); i++) {
			Run previous = ended.get(i - 1);
			Run run = ended.get(i);
			assertThat(run.startedAt()).as("%s starts after %s ended", run, previous).isGreaterThan(previous.endedAt());
			assertThat(run.term()).as("%s after %s", run, previous).isGreaterThan(previous.term());
		}
		assertThat(ended.stream().map(Run::nodeId).distinct().count()).as("nodes that ran the job").isGreaterThan(1);
		assertThat(jdbc.queryForList("SELECT term FROM shedlock_nodes_ticks ORDER BY term", Long.class))
			.as("fenced writes")
			.containsExactlyElementsOf(ended.stream().map(Run::term).toList());
	}

	private ConfigurableApplicationContext start(String nodeId) {
		return new SpringApplicationBuilder(TickApplication.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + DATABASE.url(), "spring.datasource.username=" + DATABASE.username(),
					"spring.datasource.password=" + DATABASE.password(), "spring.jmx.enabled=false",
					"spring.main.banner-mode=off", "leader-election.node-id=" + nodeId,
					"leader-election.jdbc.table-name=" + TABLES.leaseTable(),
					"leader-election.jdbc.candidate-table-name=" + TABLES.candidateTable(),
					"leader-election.jdbc.initialize-schema=never")
			.run();
	}

	/**
	 * One run of the job.
	 *
	 * @param nodeId the node
	 * @param term the lock's term
	 * @param startedAt monotonic time at its start
	 * @param endedAt monotonic time at its end
	 */
	record Run(String nodeId, long term, long startedAt, long endedAt) {
	}

	/**
	 * The application: ShedLock's annotations, the cluster locks' provider from the
	 * auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class TickApplication {

		@Bean
		Ticks ticks(JdbcTemplate jdbc, org.springframework.core.env.Environment environment) {
			return new Ticks(jdbc, environment.getRequiredProperty("leader-election.node-id"));
		}

	}

	static class Ticks {

		private final JdbcTemplate jdbc;

		private final String nodeId;

		Ticks(JdbcTemplate jdbc, String nodeId) {
			this.jdbc = jdbc;
			this.nodeId = nodeId;
		}

		@Scheduled(fixedDelay = 10)
		@SchedulerLock(name = "tick")
		public void tick() throws InterruptedException {
			LockAssert.assertLocked();
			long startedAt = System.nanoTime();
			long term = SchedulerLockContext.runFenced((fenced) -> {
				this.jdbc.update("INSERT INTO shedlock_nodes_ticks (term, node_id) VALUES (?, ?)", fenced, this.nodeId);
				return fenced;
			});
			// Long enough for the other nodes to try the lock while it is held.
			Thread.sleep(20);
			runs.add(new Run(this.nodeId, term, startedAt, System.nanoTime()));
		}

	}

}
