package io.github.dbleader.autoconfigure.endpoint;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.autoconfigure.ActuatorClient;
import io.github.dbleader.autoconfigure.Handovers;
import io.github.dbleader.autoconfigure.TestApplication;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeaderInfo;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code leader} endpoint and its errors ({@link EndpointErrors}) wherever the
 * actuator is served: on a management port of its own ({@code management.server.port}),
 * under other base paths ({@code management.server.base-path},
 * {@code management.endpoints.web.base-path}), with a path mapping
 * ({@code management.endpoints.web.path-mapping.leader}) and below a dispatcher servlet
 * path ({@code spring.mvc.servlet.path}). The application under test is node
 * {@code mgmt-a}; a second {@link ElectionService} on the same tables plays node
 * {@code mgmt-b}, so that a bare {@code POST} has leadership to take back. The database
 * is H2: what is under test is the web layer.
 */
class LeaderEndpointManagementServerIntegrationTests {

	private static final TestDatabase DATABASE = TestDatabase.H2;

	private static final LeaseTables TABLES = new LeaseTables("boot_mgmt_lease", "boot_mgmt_candidate");

	private static final Duration RENEW = Duration.ofMillis(200);

	private static final ElectionSettings SETTINGS = ElectionSettings.of(Duration.ofSeconds(3), RENEW);

	/**
	 * A forced change takes about two renew intervals (invariants.md I6); the rest is
	 * slack for a loaded CI.
	 */
	private static final Duration HANDOVER_BOUND = RENEW.multipliedBy(2).plusMillis(2500);

	private static final String MANAGEMENT_PORT = "local.management.port";

	private static final String SERVER_PORT = "local.server.port";

	private HikariDataSource dataSource;

	private ConfigurableApplicationContext application;

	private ElectionService otherNode;

	private Election thisElection;

	private Election otherElection;

	@AfterEach
	void stop() {
		if (this.otherNode != null) {
			this.otherNode.stop();
		}
		if (this.application != null) {
			this.application.close();
		}
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	@Test
	void separateManagementPort() throws Exception {
		start("management.server.port=0");
		assertThat(port(MANAGEMENT_PORT)).isNotEqualTo(port(SERVER_PORT));
		assertServed(new ActuatorClient(this.application, MANAGEMENT_PORT, "/actuator/leader"));
		assertNotServed(new ActuatorClient(this.application, SERVER_PORT, "/actuator/leader"));
	}

	@Test
	void separateManagementPortWithBasePathsAndPathMapping() throws Exception {
		// The application's servlet path does not apply on the management port.
		start("management.server.port=0", "management.server.base-path=/management",
				"management.endpoints.web.base-path=/manage", "management.endpoints.web.path-mapping.leader=elections",
				"spring.mvc.servlet.path=/api");
		assertServed(new ActuatorClient(this.application, MANAGEMENT_PORT, "/management/manage/elections"));
		assertNotServed(new ActuatorClient(this.application, MANAGEMENT_PORT, "/manage/elections"));
		assertNotServed(new ActuatorClient(this.application, MANAGEMENT_PORT, "/management/actuator/leader"));
		assertNotServed(new ActuatorClient(this.application, MANAGEMENT_PORT, "/management/api/manage/elections"));
		assertNotServed(new ActuatorClient(this.application, SERVER_PORT, "/api/manage/elections"));
		assertNotServed(new ActuatorClient(this.application, SERVER_PORT, "/management/manage/elections"));
	}

	@Test
	void sameManagementPortWithBasePathAndPathMapping() throws Exception {
		start("management.endpoints.web.base-path=/manage", "management.endpoints.web.path-mapping.leader=elections");
		assertServed(new ActuatorClient(this.application, SERVER_PORT, "/manage/elections"));
		assertNotServed(new ActuatorClient(this.application, SERVER_PORT, "/actuator/leader"));
	}

	@Test
	void sameManagementPortBelowADispatcherServletPath() throws Exception {
		start("spring.mvc.servlet.path=/api", "management.endpoints.web.base-path=/manage");
		assertServed(new ActuatorClient(this.application, SERVER_PORT, "/api/manage/leader"));
		assertNotServed(new ActuatorClient(this.application, SERVER_PORT, "/manage/leader"));
	}

	/**
	 * Start the application as node {@code mgmt-a} with the endpoint exposed and
	 * writable, and node {@code mgmt-b} beside it.
	 * @param properties where the actuator is served
	 */
	private void start(String... properties) {
		this.dataSource = DATABASE.dataSource(2);
		DATABASE.dropTables(this.dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(this.dataSource, SqlDialect.forName(DATABASE.platform()), TABLES);
		List<String> all = new ArrayList<>(List.of("leader-election.node-id=mgmt-a",
				"leader-election.lease-duration=" + SETTINGS.leaseDuration().toMillis() + "ms",
				"leader-election.renew-interval=" + RENEW.toMillis() + "ms",
				"leader-election.jdbc.table-name=" + TABLES.leaseTable(),
				"leader-election.jdbc.candidate-table-name=" + TABLES.candidateTable(),
				"leader-election.jdbc.initialize-schema=never", "management.endpoints.web.exposure.include=leader",
				"management.endpoint.leader.access=unrestricted"));
		all.addAll(List.of(properties));
		this.application = TestApplication.start(DATABASE, true, new Class<?>[0], all.toArray(String[]::new));
		this.thisElection = this.application.getBean(ElectionService.class).election("default");
		await().atMost(Duration.ofSeconds(10)).until(this.thisElection::isLeader);
		this.otherNode = new ElectionService(new JdbcLeaseRepository(this.dataSource,
				SqlDialect.forName(DATABASE.platform()), TABLES, SETTINGS.statementTimeout()), SETTINGS, "mgmt-b",
				LeadershipListener.NONE);
		this.otherElection = this.otherNode.election("default");
		this.otherNode.start();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.thisElection.candidates().stream().anyMatch((c) -> c.nodeId().equals("mgmt-b")));
	}

	/**
	 * The endpoint answers at the client's address: a malformed body and an unknown field
	 * get a 400 (the latter saying why) and change nothing, and a {@code POST} without a
	 * body takes leadership back to this node.
	 * @param client the client for the endpoint's address
	 */
	private void assertServed(ActuatorClient client) throws Exception {
		HttpResponse<String> read = client.send("GET", "", null);
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(read.body(), "$.nodeId")).isEqualTo("mgmt-a");
		assertThat(client.send("GET", "/default", null).statusCode()).isEqualTo(200);
		this.thisElection.forceLeader("mgmt-b");
		Handovers.awaitLeader(this.otherElection, this.thisElection, HANDOVER_BOUND);
		LeaderInfo before = this.thisElection.leaderInfo();
		assertThat(client.send("POST", "/default", "{\"nodeId\":").statusCode()).isEqualTo(400);
		HttpResponse<String> misspelt = client.send("POST", "/default", "{\"node\":\"mgmt-a\"}");
		assertThat(misspelt.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(misspelt.body(), "$.message")).contains("Unknown field(s) [node]");
		LeaderInfo after = this.thisElection.leaderInfo();
		assertThat(after.leaderId()).isEqualTo(before.leaderId()).isEqualTo("mgmt-b");
		assertThat(after.handoverTo()).isNull();
		assertThat(client.send("POST", "/default", "").statusCode()).isEqualTo(200);
		Handovers.awaitLeader(this.thisElection, this.otherElection, HANDOVER_BOUND);
	}

	/**
	 * Nothing answers at the client's address: a malformed body gets a 404, not a 400.
	 * @param client the client for an address where the endpoint must not be
	 */
	private void assertNotServed(ActuatorClient client) throws Exception {
		assertThat(client.send("GET", "", null).statusCode()).isEqualTo(404);
		assertThat(client.send("GET", "/default", null).statusCode()).isEqualTo(404);
		assertThat(client.send("POST", "/default", "{\"nodeId\":").statusCode()).isEqualTo(404);
		assertThat(client.send("POST", "/default", null).statusCode()).isEqualTo(404);
	}

	private int port(String property) {
		return this.application.getEnvironment().getRequiredProperty(property, Integer.class);
	}

}
