package io.github.dbleader.autoconfigure.endpoint;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.autoconfigure.ActuatorClient;
import io.github.dbleader.autoconfigure.Handovers;
import io.github.dbleader.autoconfigure.TestApplication;
import io.github.dbleader.election.Candidate;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code leader} endpoint over HTTP against the MySQL-protocol test database
 * ({@link TestDatabase#MYSQL}: MariaDB in CI). The application under test is node
 * {@code endpoint-a}; a second {@link ElectionService} on the same tables plays node
 * {@code endpoint-b}.
 */
class LeaderEndpointIntegrationTests {

	private static final TestDatabase DATABASE = TestDatabase.MYSQL;

	private static final LeaseTables TABLES = new LeaseTables("boot_endpoint_lease", "boot_endpoint_candidate");

	private static final Duration RENEW = Duration.ofSeconds(1);

	private static final ElectionSettings SETTINGS = ElectionSettings.of(Duration.ofSeconds(6), RENEW);

	/**
	 * A forced change takes about two renew intervals (invariants.md I6); the rest is
	 * slack for a loaded CI.
	 */
	private static final Duration HANDOVER_BOUND = RENEW.multipliedBy(2).plusMillis(1500);

	private static HikariDataSource dataSource;

	private static ConfigurableApplicationContext application;

	private static ElectionService otherNode;

	private static Election thisElection;

	private static Election otherElection;

	@BeforeAll
	static void start() {
		dataSource = DATABASE.dataSource(2);
		DATABASE.dropTables(dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(dataSource, SqlDialect.forName(DATABASE.platform()), TABLES);
		application = TestApplication.start(DATABASE, true, new Class<?>[0], "leader-election.node-id=endpoint-a",
				"leader-election.lease-duration=6s", "leader-election.renew-interval=1s",
				"leader-election.jdbc.table-name=" + TABLES.leaseTable(),
				"leader-election.jdbc.candidate-table-name=" + TABLES.candidateTable(),
				"leader-election.jdbc.initialize-schema=never", "management.endpoints.web.exposure.include=leader",
				"management.endpoint.leader.access=unrestricted");
		thisElection = application.getBean(ElectionService.class).election("default");
		await().atMost(Duration.ofSeconds(10)).until(thisElection::isLeader);
		otherNode = new ElectionService(new JdbcLeaseRepository(dataSource, SqlDialect.forName(DATABASE.platform()),
				TABLES, SETTINGS.statementTimeout()), SETTINGS, "endpoint-b", LeadershipListener.NONE);
		otherElection = otherNode.election("default");
		otherNode.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> candidateIds().contains("endpoint-b"));
	}

	@AfterAll
	static void stop() {
		if (otherNode != null) {
			otherNode.stop();
		}
		if (application != null) {
			application.close();
		}
		if (dataSource != null) {
			dataSource.close();
		}
	}

	@BeforeEach
	void thisNodeLeads() {
		if (!thisElection.isLeader()) {
			thisElection.forceLeader("endpoint-a");
			awaitLeader(thisElection, otherElection);
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void readsAllElections() throws Exception {
		HttpResponse<String> response = send("GET", "", null);
		assertThat(response.statusCode()).isEqualTo(200);
		String body = response.body();
		assertThat((String) JsonPath.read(body, "$.nodeId")).isEqualTo("endpoint-a");
		assertThat((Integer) JsonPath.read(body, "$.electionCount")).isEqualTo(1);
		assertThat((String) JsonPath.read(body, "$.elections.default.leader")).isEqualTo("endpoint-a");
		assertThat((Boolean) JsonPath.read(body, "$.elections.default.thisNodeLeads")).isTrue();
		assertThat(((Number) JsonPath.read(body, "$.elections.default.term")).longValue())
			.isEqualTo(thisElection.term());
		assertThat((String) JsonPath.read(body, "$.elections.default.acquiredAt")).isNotBlank();
		assertThat((String) JsonPath.read(body, "$.elections.default.renewedAt")).isNotBlank();
		assertThat((String) JsonPath.read(body, "$.elections.default.expiresAt")).isNotBlank();
		// The actuator leaves properties without a value out of its JSON.
		assertThat((java.util.Map<String, Object>) JsonPath.read(body, "$.elections.default"))
			.doesNotContainKey("handoverTo");
		assertThat((Boolean) JsonPath.read(body, "$.elections.default.reelectionPending")).isFalse();
		List<String> candidates = JsonPath.read(body, "$.elections.default.candidates[*].nodeId");
		assertThat(candidates).containsExactly("endpoint-a", "endpoint-b");
		assertThat((List<String>) JsonPath.read(body, "$.elections.default.candidates[*].lastSeen")).hasSize(2);
	}

	@Test
	void readsOneElection() throws Exception {
		HttpResponse<String> response = send("GET", "/default", null);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(response.body(), "$.leader")).isEqualTo("endpoint-a");
		assertThat((Boolean) JsonPath.read(response.body(), "$.thisNodeLeads")).isTrue();
	}

	@Test
	void unknownElectionIsNotFound() throws Exception {
		HttpResponse<String> response = send("GET", "/never-created", null);
		assertThat(response.statusCode()).isEqualTo(404);
		assertThat((String) JsonPath.read(response.body(), "$.message")).contains("never-created", "unknown");
		assertThat(application.getBean(ElectionService.class).findElection("never-created")).isNull();
	}

	@Test
	void forcesLeadershipToAnotherLiveNodeWithinTwoRenewIntervals() throws Exception {
		long before = thisElection.term();
		HttpResponse<String> response = send("POST", "/default", "{\"nodeId\":\"endpoint-b\"}");
		assertThat(response.statusCode()).isEqualTo(200);
		String handoverTo = JsonPath.read(response.body(), "$.handoverTo");
		String leader = JsonPath.read(response.body(), "$.leader");
		assertThat(List.of(String.valueOf(handoverTo), String.valueOf(leader))).contains("endpoint-b");
		awaitLeader(otherElection, thisElection);
		assertThat(thisElection.isLeader()).isFalse();
		assertThat(otherElection.leaderInfo().term()).isGreaterThan(before);
	}

	@Test
	void forcesLeadershipToThisNodeWithoutBody() throws Exception {
		thisElection.forceLeader("endpoint-b");
		awaitLeader(otherElection, thisElection);
		// No body, but declared as JSON as every actuator write with parameters must be.
		HttpResponse<String> response = send("POST", "/default", "");
		assertThat(response.statusCode()).isEqualTo(200);
		awaitLeader(thisElection, otherElection);
		thisElection.forceLeader("endpoint-b");
		awaitLeader(otherElection, thisElection);
		assertThat(send("POST", "/default", "{}").statusCode()).isEqualTo(200);
		awaitLeader(thisElection, otherElection);
	}

	@Test
	void unknownNodeIsRejectedAndNothingChanges() throws Exception {
		LeaderInfo before = thisElection.leaderInfo();
		HttpResponse<String> response = send("POST", "/default", "{\"nodeId\":\"ghost\"}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(response.body(), "$.message")).contains("'ghost'", "not a live candidate",
				"endpoint-a", "endpoint-b");
		assertUnchanged(before);
	}

	@Test
	void deadNodeIsRejected() throws Exception {
		ElectionService dead = new ElectionService(new JdbcLeaseRepository(dataSource,
				SqlDialect.forName(DATABASE.platform()), TABLES, SETTINGS.statementTimeout()), SETTINGS,
				"endpoint-dead", LeadershipListener.NONE);
		dead.election("default");
		dead.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> candidateIds().contains("endpoint-dead"));
		dead.halt();
		// A crashed node stays listed until it has not been seen for a lease duration.
		await().atMost(SETTINGS.leaseDuration().multipliedBy(2)).until(() -> !candidateIds().contains("endpoint-dead"));
		LeaderInfo before = thisElection.leaderInfo();
		HttpResponse<String> response = send("POST", "/default", "{\"nodeId\":\"endpoint-dead\"}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(response.body(), "$.message")).contains("endpoint-dead",
				"not a live candidate");
		assertUnchanged(before);
	}

	@Test
	void malformedBodyIsRejectedAndNothingChanges() throws Exception {
		LeaderInfo before = thisElection.leaderInfo();
		// Refused by Spring before the actuator binds it: the web stack's own error body.
		assertThat(send("POST", "/default", "{\"nodeId\":").statusCode()).isEqualTo(400);
		assertUnchanged(before);
	}

	@Test
	void misspeltFieldIsRejectedInsteadOfMeaningThisNode() throws Exception {
		thisElection.forceLeader("endpoint-b");
		awaitLeader(otherElection, thisElection);
		LeaderInfo before = thisElection.leaderInfo();
		HttpResponse<String> response = send("POST", "/default", "{\"node\":\"endpoint-a\"}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(response.body(), "$.message"))
			.isEqualTo("Unknown field(s) [node] in the request body; the only field is nodeId");
		LeaderInfo after = thisElection.leaderInfo();
		assertThat(after.leaderId()).isEqualTo(before.leaderId()).isEqualTo("endpoint-b");
		assertThat(after.handoverTo()).isNull();
	}

	@Test
	void plainPostWithoutContentTypeIsUnsupportedAndChangesNothing() throws Exception {
		thisElection.forceLeader("endpoint-b");
		awaitLeader(otherElection, thisElection);
		LeaderInfo before = thisElection.leaderInfo();
		// As every actuator write, on every web stack: the request declares JSON.
		assertThat(send("POST", "/default", null).statusCode()).isEqualTo(415);
		LeaderInfo after = thisElection.leaderInfo();
		assertThat(after.leaderId()).isEqualTo(before.leaderId()).isEqualTo("endpoint-b");
		assertThat(after.handoverTo()).isNull();
	}

	@Test
	void overLongNamesAreRejected() throws Exception {
		HttpResponse<String> election = send("POST", "/" + "e".repeat(129), "{\"nodeId\":\"endpoint-b\"}");
		assertThat(election.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(election.body(), "$.message")).contains("Election name", "128", "129");
		LeaderInfo before = thisElection.leaderInfo();
		HttpResponse<String> node = send("POST", "/default", "{\"nodeId\":\"" + "n".repeat(256) + "\"}");
		assertThat(node.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(node.body(), "$.message")).contains("Node id", "255", "256");
		assertUnchanged(before);
	}

	@Test
	void deleteForcesReelection() throws Exception {
		long before = thisElection.term();
		HttpResponse<String> response = send("DELETE", "/default", null);
		assertThat(response.statusCode()).isEqualTo(200);
		awaitLeader(otherElection, thisElection);
		assertThat(otherElection.leaderInfo().term()).isGreaterThan(before);
	}

	private void assertUnchanged(LeaderInfo before) {
		LeaderInfo after = thisElection.leaderInfo();
		assertThat(after.leaderId()).isEqualTo(before.leaderId());
		assertThat(after.term()).isEqualTo(before.term());
		assertThat(after.handoverTo()).isNull();
		assertThat(after.reelectionPending()).isFalse();
	}

	private static void awaitLeader(Election next, Election previous) {
		Handovers.awaitLeader(next, previous, HANDOVER_BOUND);
	}

	private static List<String> candidateIds() {
		return thisElection.candidates().stream().map(Candidate::nodeId).toList();
	}

	private HttpResponse<String> send(String method, String path, String json)
			throws IOException, InterruptedException {
		return new ActuatorClient(application).send(method, path, json);
	}

}
