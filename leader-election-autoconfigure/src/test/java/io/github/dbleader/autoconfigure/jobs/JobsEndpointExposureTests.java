package io.github.dbleader.autoconfigure.jobs;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.autoconfigure.ActuatorClient;
import io.github.dbleader.autoconfigure.TestApplication;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code jobs} endpoint follows the actuator's exposure and access rules over HTTP:
 * nothing unless exposed, and a run only with unrestricted access, as the writes of the
 * {@code leader} and {@code locks} endpoints.
 */
class JobsEndpointExposureTests {

	private static final String[] TABLES = { "leader-election.jdbc.table-name=boot_jobs_lease",
			"leader-election.jdbc.candidate-table-name=boot_jobs_candidate" };

	@Test
	void notExposedByDefault() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			assertThat(send(context, "GET", "").statusCode()).isEqualTo(404);
			assertThat(send(context, "POST", "/jobs.report").statusCode()).isEqualTo(404);
			assertThat(context.getBean(Jobs.class).runs()).isEmpty();
		}
	}

	@Test
	void exposedEndpointIsReadOnlyByDefault() throws Exception {
		try (ConfigurableApplicationContext context = start("management.endpoints.web.exposure.include=jobs")) {
			awaitLeader(context);
			HttpResponse<String> jobs = send(context, "GET", "");
			assertThat(jobs.statusCode()).isEqualTo(200);
			assertThat(jobs.body()).contains("\"jobs.report\":{\"kind\":\"LEADER_ONLY\",\"election\":\"default\"");
			assertThat(send(context, "GET", "/jobs.report").statusCode()).isEqualTo(200);
			assertThat(send(context, "POST", "/jobs.report").statusCode()).isEqualTo(405);
			assertThat(context.getBean(Jobs.class).runs()).isEmpty();
		}
	}

	@Test
	void aRunNeedsUnrestrictedAccess() throws Exception {
		try (ConfigurableApplicationContext context = start("management.endpoints.web.exposure.include=jobs",
				"management.endpoint.jobs.access=unrestricted")) {
			Election election = awaitLeader(context);
			HttpResponse<String> run = send(context, "POST", "/jobs.report");
			assertThat(run.statusCode()).isEqualTo(200);
			assertThat(run.body()).contains("\"job\":\"jobs.report\"", "\"nodeId\":\"jobs-node\"",
					"\"outcome\":\"COMPLETED\"", "\"term\":" + election.term());
			assertThat(context.getBean(Jobs.class).runs()).containsExactly("report");
			HttpResponse<String> unknown = send(context, "POST", "/jobs.nothing");
			assertThat(unknown.statusCode()).isEqualTo(404);
			assertThat(unknown.body())
				.isEqualTo("{\"message\":\"Job 'jobs.nothing' is unknown on this node; its jobs are [jobs.report]\"}");
		}
	}

	private static Election awaitLeader(ConfigurableApplicationContext context) {
		Election election = context.getBean(ElectionService.class).election("default");
		await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
		return election;
	}

	private static ConfigurableApplicationContext start(String... properties) {
		String[] all = new String[properties.length + TABLES.length + 3];
		System.arraycopy(TABLES, 0, all, 0, TABLES.length);
		System.arraycopy(properties, 0, all, TABLES.length, properties.length);
		all[all.length - 3] = "leader-election.node-id=jobs-node";
		all[all.length - 2] = "leader-election.lease-duration=3s";
		all[all.length - 1] = "leader-election.renew-interval=200ms";
		return TestApplication.start(TestDatabase.H2, true, new Class<?>[] { JobsConfiguration.class }, all);
	}

	private static HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path)
			throws Exception {
		return new ActuatorClient(context, "local.server.port", "/actuator/jobs").send(method, path, null);
	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		private final List<String> runs = new CopyOnWriteArrayList<>();

		@LeaderOnly
		public void report() {
			this.runs.add("report");
		}

		public List<String> runs() {
			return this.runs;
		}

	}

}
