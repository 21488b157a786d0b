package io.github.dbleader.boot3;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.event.LeadershipEvent;
import io.github.dbleader.election.event.LeadershipGrantedEvent;
import io.github.dbleader.election.event.LeadershipRevokedEvent;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.core.SpringVersion;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two nodes of a Spring Boot 3.5 application whose only leader election dependency is
 * leader-election-spring-boot-3-starter, on the MySQL-protocol test database (MariaDB in
 * CI): a {@code @Scheduled @LeaderOnly} job runs on the leader only, a
 * {@code @Scheduled @ClusterLock} job runs, {@code /actuator/leader} reads and moves
 * leadership ({@code GET}, {@code POST} with and without a body, {@code DELETE}) and each
 * move reaches the applications as leadership events, as on Spring Boot 4.
 */
class SpringBoot3ApplicationIntegrationTests {

	private static final TestDatabase DATABASE = TestDatabase.MYSQL;

	private static final Duration HANDOVER = Duration.ofSeconds(10);

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void runsOnSpringBoot3() throws Exception {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
		assertThat(SpringVersion.getVersion()).startsWith("6.2.");
		try (HikariDataSource dataSource = DATABASE.dataSource(1)) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			for (String table : List.of("boot3_lease", "boot3_candidate", "boot3_lease_fence", "boot3_lease_nodes",
					"boot3_lease_pins")) {
				jdbc.execute("DROP TABLE IF EXISTS " + table);
			}
		}
		try (ConfigurableApplicationContext first = start("boot3-a")) {
			Election a = election(first);
			await().atMost(HANDOVER).until(a::isLeader);
			try (ConfigurableApplicationContext second = start("boot3-b")) {
				moveLeadership(first, a, second);
			}
		}
	}

	/**
	 * The jobs run, then leadership moves through the endpoint and the events follow.
	 * @param first the first node's application, leading
	 * @param a the first node's election
	 * @param second the second node's application
	 */
	@SuppressWarnings("unchecked")
	private void moveLeadership(ConfigurableApplicationContext first, Election a, ConfigurableApplicationContext second)
			throws Exception {
		Election b = election(second);
		await().atMost(HANDOVER)
			.until(() -> a.candidates().stream().anyMatch((candidate) -> candidate.nodeId().equals("boot3-b")));

		// @LeaderOnly: only the leader's job runs.
		Jobs jobsA = first.getBean(Jobs.class);
		Jobs jobsB = second.getBean(Jobs.class);
		await().atMost(HANDOVER).until(() -> jobsA.leaderOnlyRuns() >= 3);
		assertThat(jobsB.leaderOnlyRuns()).isZero();
		// @ClusterLock: the job runs, on one node at a time.
		await().atMost(HANDOVER).until(() -> jobsA.lockedRuns() + jobsB.lockedRuns() >= 3);

		// GET: the same JSON as on Boot 4.
		HttpResponse<String> read = send(first, "GET", "", null);
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(read.body(), "$.elections.default.leader")).isEqualTo("boot3-a");
		assertThat((Boolean) JsonPath.read(read.body(), "$.elections.default.thisNodeLeads")).isTrue();
		assertThat((List<String>) JsonPath.read(read.body(), "$.elections.default.candidates[*].nodeId"))
			.containsExactlyInAnyOrder("boot3-a", "boot3-b");

		// POST with a node: hand-over to b; the job and the events follow.
		assertThat(send(first, "POST", "/default", "{\"nodeId\":\"boot3-b\"}").statusCode()).isEqualTo(200);
		await().atMost(HANDOVER).until(() -> b.isLeader() && !a.isLeader());
		await().atMost(HANDOVER).until(() -> jobsB.leaderOnlyRuns() >= 1);
		await().atMost(HANDOVER)
			.until(() -> events(first, LeadershipRevokedEvent.class) >= 1
					&& events(second, LeadershipGrantedEvent.class) >= 1);

		// POST without a body (declaring JSON): leadership to the node that was asked.
		assertThat(send(first, "POST", "/default", null).statusCode()).isEqualTo(200);
		await().atMost(HANDOVER).until(() -> a.isLeader() && !b.isLeader());
		await().atMost(HANDOVER).until(() -> events(first, LeadershipGrantedEvent.class) >= 2);

		// DELETE: a re-election; the leader steps down, and some node leads again.
		long term = a.leaderInfo().term();
		assertThat(send(first, "DELETE", "/default", null).statusCode()).isEqualTo(200);
		await().atMost(HANDOVER).until(() -> a.leaderInfo().term() > term && (a.isLeader() || b.isLeader()));
		assertThat(events(first, LeadershipRevokedEvent.class)).isGreaterThanOrEqualTo(2);
	}

	private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path, String body)
			throws Exception {
		String port = context.getEnvironment().getProperty("local.server.port");
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/leader" + path))
			.timeout(Duration.ofSeconds(10));
		if (body != null || "POST".equals(method)) {
			// An actuator write declares JSON, with a body or without (415 otherwise).
			request.header("Content-Type", "application/json");
		}
		request.method(method,
				(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static long events(ConfigurableApplicationContext context, Class<? extends LeadershipEvent> type) {
		return context.getBean(Events.class).received.stream().filter(type::isInstance).count();
	}

	private static Election election(ConfigurableApplicationContext context) {
		return context.getBean(ElectionService.class).election("default");
	}

	private static ConfigurableApplicationContext start(String nodeId) {
		return new SpringApplicationBuilder(Application.class)
			.properties("spring.datasource.url=" + DATABASE.url(), "spring.datasource.username=" + DATABASE.username(),
					"spring.datasource.password=" + DATABASE.password(), "spring.jmx.enabled=false", "server.port=0",
					"spring.main.banner-mode=off", "management.endpoints.web.exposure.include=leader",
					"management.endpoint.leader.access=unrestricted", "leader-election.node-id=" + nodeId,
					"leader-election.lease-duration=6s", "leader-election.renew-interval=1s",
					"leader-election.jdbc.table-name=boot3_lease",
					"leader-election.jdbc.candidate-table-name=boot3_candidate",
					"leader-election.jdbc.initialize-schema=always")
			.run();
	}

	/** The application: nothing but its jobs and an event listener. */
	@SpringBootApplication(proxyBeanMethods = false)
	@EnableScheduling
	@Import({ Jobs.class, Events.class })
	static class Application {

	}

	static class Jobs {

		final AtomicInteger leaderOnlyRuns = new AtomicInteger();

		final AtomicInteger lockedRuns = new AtomicInteger();

		@Scheduled(fixedDelay = 100)
		@LeaderOnly
		public void leaderOnly() {
			this.leaderOnlyRuns.incrementAndGet();
		}

		@Scheduled(fixedDelay = 100)
		@ClusterLock(atMostFor = "5s")
		public void locked() {
			this.lockedRuns.incrementAndGet();
		}

		// Read through methods: the bean is a proxy (@LeaderOnly, @ClusterLock).
		public int leaderOnlyRuns() {
			return this.leaderOnlyRuns.get();
		}

		public int lockedRuns() {
			return this.lockedRuns.get();
		}

	}

	static class Events {

		final List<LeadershipEvent> received = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeadershipEvent event) {
			this.received.add(event);
		}

	}

}
