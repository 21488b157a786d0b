package io.github.dbleader.autoconfigure.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.FaultyDatabaseConfiguration;
import io.github.dbleader.autoconfigure.FaultyDatabaseConfiguration.Fault;
import io.github.dbleader.autoconfigure.LeaderElectionProperties;
import io.github.dbleader.autoconfigure.TestApplication;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.lock.LockRepository;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * The starter's endpoints refuse the same requests with the same status and body on
 * Spring MVC and on WebFlux, and with the same message over JMX ({@link EndpointErrors}):
 * an unknown election, lock, group or job, a body or query the operation does not take, a
 * database that does not answer, a write with read-only access. No server is started. The
 * statement timeout is 500 ms, so that a loaded machine reads an unknown election in
 * time.
 */
class EndpointErrorsTests {

	private static final String[] PROPERTIES = { "leader-election.node-id=me", "leader-election.lease-duration=5s",
			"leader-election.renew-interval=1s", "leader-election.partitions.orders.count=2",
			"management.endpoints.web.exposure.include=leader,locks,partitions,jobs",
			"management.endpoint.leader.access=UNRESTRICTED", "management.endpoint.partitions.access=UNRESTRICTED",
			"management.endpoint.locks.access=UNRESTRICTED", "spring.jmx.enabled=true", "spring.jmx.unique-names=true",
			"management.endpoints.jmx.exposure.include=leader,locks,partitions,jobs", "spring.flyway.enabled=false",
			"spring.liquibase.enabled=false", "spring.main.banner-mode=off", "leader-election.follow-readiness=false" };

	private static final String UNKNOWN_ELECTION = "Election 'nightly' is unknown: this node does not run it and it has no lease";

	private static final String UNKNOWN_LOCK = "Lock 'nightly' is unknown: it was never taken (or, while the database"
			+ " does not answer, this node never read it)";

	private static final String UNKNOWN_GROUP = "This node has no partition group 'nothing'; its groups are [orders]";

	private static final String UNKNOWN_JOB = "Job 'nothing' is unknown on this node; its jobs are []";

	private static final String OUT_OF_RANGE = "Partition group 'orders' has partitions 0 to 1";

	private static final String NOT_AN_INTEGER = "partition must be an integer but was 'x'";

	/** What each endpoint refuses while the database answers, and how. */
	private static final List<Refusal> REFUSALS = List.of(
			new Refusal("GET", "/actuator/leader/nightly", null, 404, UNKNOWN_ELECTION),
			new Refusal("POST", "/actuator/leader/nightly", "{\"nodeId\":\"me\"}", 400,
					"Election 'nightly' is not run by this node; elections run here are [default]"),
			new Refusal("POST", "/actuator/leader/default", "{\"node\":\"me\"}", 400,
					"Unknown field(s) [node] in the request body; the only field is nodeId"),
			// Refused by the web stack before the actuator binds the request: its own
			// body.
			new Refusal("POST", "/actuator/leader/default", "{\"nodeId\":", 400, null),
			new Refusal("POST", "/actuator/leader/default", null, 415, null),
			new Refusal("GET", "/actuator/locks/nightly", null, 404, UNKNOWN_LOCK),
			new Refusal("GET", "/actuator/partitions/nothing", null, 404, UNKNOWN_GROUP),
			new Refusal("POST", "/actuator/partitions/orders", "{\"partition\":\"x\",\"nodeId\":\"me\"}", 400,
					NOT_AN_INTEGER),
			new Refusal("POST", "/actuator/partitions/orders", "{\"nodeId\":\"me\"}", 400,
					"Missing field partition in the request body; the fields are [partition, nodeId]"),
			new Refusal("POST", "/actuator/partitions/orders", "{\"partition\":5,\"nodeId\":\"me\"}", 400,
					OUT_OF_RANGE),
			new Refusal("DELETE", "/actuator/partitions/orders", null, 400,
					"Missing query parameter partition; the only query parameter is partition"),
			new Refusal("DELETE", "/actuator/partitions/orders?partition=abc", null, 400,
					"partition must be an integer but was 'abc'"),
			new Refusal("GET", "/actuator/jobs/nothing", null, 404, UNKNOWN_JOB),
			// Read-only access (the default): the web stack's own body.
			new Refusal("POST", "/actuator/jobs/nothing", null, 405, null));

	private static final String UNKNOWN_OUTCOME = ": outcome unknown, the database did not answer within 500 ms; it"
			+ " may still take effect: read before you repeat it";

	/** What they refuse while the database hangs. */
	private static final List<Refusal> DATABASE_AWAY = List.of(
			new Refusal("GET", "/actuator/leader/weekly", null, 503,
					"Election 'weekly' is not run by this node and"
							+ " the database did not answer within 500 ms; this node has not read it before"),
			new Refusal("DELETE", "/actuator/leader/default", null, 503,
					"Re-election of election 'default'" + UNKNOWN_OUTCOME),
			new Refusal("POST", "/actuator/partitions/orders", "{\"partition\":1,\"nodeId\":\"me\"}", 503,
					"Pin of partition 1 of group 'orders' to 'me'" + UNKNOWN_OUTCOME),
			new Refusal("DELETE", "/actuator/locks/nightly", null, 503, "Release of lock 'nightly'" + UNKNOWN_OUTCOME));

	@Test
	void springMvcAndJmx() {
		new WebApplicationContextRunner()
			.withUserConfiguration(TestApplication.class, FaultyDatabaseConfiguration.class, FaultyLocks.class)
			.withPropertyValues(PROPERTIES)
			.withPropertyValues(database())
			.run((context) -> {
				MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
				assertRefusals(context, (method, path, json) -> {
					MockHttpServletRequestBuilder request = MockMvcRequestBuilders.request(HttpMethod.valueOf(method),
							path);
					if (json != null) {
						request.contentType(MediaType.APPLICATION_JSON).content(json);
					}
					MvcResult result = mvc.perform(request).andReturn();
					return new Answer(result.getResponse().getStatus(), result.getResponse().getContentAsString());
				});
				assertJmxRefusals(context);
			});
	}

	@Test
	void webFlux() {
		new ReactiveWebApplicationContextRunner()
			.withUserConfiguration(TestApplication.class, FaultyDatabaseConfiguration.class, FaultyLocks.class)
			.withPropertyValues(PROPERTIES)
			.withPropertyValues(database())
			.run((context) -> {
				WebTestClient client = WebTestClient.bindToApplicationContext(context).build();
				assertRefusals(context, (method, path, json) -> {
					WebTestClient.RequestBodySpec request = client.method(HttpMethod.valueOf(method)).uri(path);
					if (json != null) {
						request.contentType(MediaType.APPLICATION_JSON).bodyValue(json);
					}
					EntityExchangeResult<String> result = request.exchange().expectBody(String.class).returnResult();
					return new Answer(result.getStatus().value(), result.getResponseBody());
				});
			});
	}

	/**
	 * Over JMX, each operation fails with the message of the web body, called as JMX
	 * does.
	 */
	private static void assertJmxRefusals(ApplicationContext context) throws Exception {
		MBeanServer server = context.getBean(MBeanServer.class);
		assertJmxRefusal(server, "Leader", "election", new Object[] { "nightly" }, UNKNOWN_ELECTION);
		assertJmxRefusal(server, "Locks", "lock", new Object[] { "nightly" }, UNKNOWN_LOCK);
		assertJmxRefusal(server, "Partitions", "group", new Object[] { "nothing" }, UNKNOWN_GROUP);
		assertJmxRefusal(server, "Partitions", "pin", new Object[] { "orders", "x", "me" }, NOT_AN_INTEGER);
		assertJmxRefusal(server, "Partitions", "pin", new Object[] { "orders", "5", "me" }, OUT_OF_RANGE);
		assertJmxRefusal(server, "Jobs", "job", new Object[] { "nothing" }, UNKNOWN_JOB);
	}

	private static void assertJmxRefusal(MBeanServer server, String endpoint, String operation, Object[] arguments,
			String message) throws Exception {
		Set<ObjectName> names = server.queryNames(new ObjectName("*:type=Endpoint,name=" + endpoint + ",*"), null);
		assertThat(names).hasSize(1);
		String[] signature = new String[arguments.length];
		java.util.Arrays.fill(signature, String.class.getName());
		assertThatException().isThrownBy(() -> server.invoke(names.iterator().next(), operation, arguments, signature))
			.satisfies((ex) -> assertThat(ex.getCause()).hasMessage(message));
	}

	private static void assertRefusals(ApplicationContext context, Client client) throws Exception {
		ElectionService service = context.getBean(ElectionService.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> service.election("default").isLeader());
		for (Refusal refusal : REFUSALS) {
			refusal.assertAnswered(client);
		}
		FaultyDatabaseConfiguration fault = context.getBean(FaultyDatabaseConfiguration.class);
		fault.start(Fault.HANG);
		try {
			for (Refusal refusal : DATABASE_AWAY) {
				refusal.assertAnswered(client);
			}
		}
		finally {
			fault.restore();
		}
	}

	private static String database() {
		return "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

	/** The locks behind the same fault as the elections. */
	@Configuration(proxyBeanMethods = false)
	static class FaultyLocks {

		@Bean
		LockRepository faultyLockRepository(FaultyDatabaseConfiguration fault, DataSource dataSource,
				LeaderElectionProperties properties) {
			Duration statementTimeout = properties.determineElectionSettings().statementTimeout();
			return fault.faulty(
					new JdbcLockRepository(
							new JdbcStore(dataSource, SqlDialect.H2, LeaseTables.defaults(), statementTimeout)),
					statementTimeout);
		}

	}

	@FunctionalInterface
	private interface Client {

		Answer send(String method, String path, String json) throws Exception;

	}

	private record Answer(int status, String body) {

	}

	/**
	 * A request and its refusal.
	 *
	 * @param message the body's message, or {@code null} for the web stack's own body
	 */
	private record Refusal(String method, String path, String json, int status, String message) {

		void assertAnswered(Client client) throws Exception {
			Answer answer = client.send(this.method, this.path, this.json);
			assertThat(answer.status()).as("%s %s", this.method, this.path).isEqualTo(this.status);
			if (this.message != null) {
				assertThat(answer.body()).as("%s %s", this.method, this.path)
					.isEqualTo("{\"message\":\"" + this.message.replace("\"", "\\\"") + "\"}");
			}
		}

	}

}
