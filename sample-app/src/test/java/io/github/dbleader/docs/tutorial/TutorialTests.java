package io.github.dbleader.docs.tutorial;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The tutorial's application (docs/tutorial/first-leader-only-job.md), with its own
 * properties and schema, run as two instances on one database as the tutorial does: one
 * of them writes the reports, with its term, and after it stops the other takes over with
 * a higher term. The properties bind as written; only the database is an in-memory one of
 * this test instead of the tutorial's file.
 */
class TutorialTests {

	private final String database = "jdbc:h2:mem:tutorial-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	@AfterEach
	void stop() {
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { this.first,
				this.second }) {
			if (context != null) {
				context.close();
			}
		}
	}

	@Test
	void oneOfTwoInstancesWritesTheReportsAndTheOtherTakesOverWithAHigherTerm() {
		this.first = start("tutorial-a");
		this.second = start("tutorial-b");
		JdbcTemplate jdbc = this.second.getBean(JdbcTemplate.class);
		await().atMost(Duration.ofSeconds(20)).until(() -> count(jdbc) >= 2);
		Election a = election(this.first);
		Election b = election(this.second);
		assertThat(a.isLeader() ^ b.isLeader()).as("exactly one instance leads").isTrue();
		ConfigurableApplicationContext leader = a.isLeader() ? this.first : this.second;
		String leaderId = election(leader).nodeId();
		long leaderTerm = election(leader).term();
		assertThat(runs(jdbc)).allSatisfy((run) -> {
			assertThat(run.get("NODE_ID")).isEqualTo(leaderId);
			assertThat(run.get("TERM")).isEqualTo(leaderTerm);
		});

		ConfigurableApplicationContext follower = (leader == this.first) ? this.second : this.first;
		JdbcTemplate followerJdbc = follower.getBean(JdbcTemplate.class);
		leader.close();
		Election successor = election(follower);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> followerJdbc.queryForObject("SELECT COUNT(*) FROM report_run WHERE node_id = ?", Integer.class,
					successor.nodeId()) >= 1);
		assertThat(successor.term()).isGreaterThan(leaderTerm);
	}

	private ConfigurableApplicationContext start(String nodeId) {
		return new SpringApplicationBuilder(TutorialApplication.class).run(
				"--spring.config.location=classpath:docs/tutorial/application.properties",
				"--spring.sql.init.schema-locations=classpath:docs/tutorial/schema.sql",
				"--spring.datasource.url=" + this.database, "--server.port=0", "--leader-election.node-id=" + nodeId);
	}

	private static Election election(ConfigurableApplicationContext context) {
		return context.getBean(ElectionService.class).election("default");
	}

	private static int count(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM report_run", Integer.class);
	}

	private static List<Map<String, Object>> runs(JdbcTemplate jdbc) {
		return jdbc.queryForList("SELECT node_id, term FROM report_run");
	}

}
