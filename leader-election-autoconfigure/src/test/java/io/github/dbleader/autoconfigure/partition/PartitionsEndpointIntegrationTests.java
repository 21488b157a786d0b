package io.github.dbleader.autoconfigure.partition;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.autoconfigure.ActuatorClient;
import io.github.dbleader.autoconfigure.TestApplication;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.JdbcPartitionPins;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroups;
import io.github.dbleader.election.partition.PartitionSettings;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code partitions} endpoint over HTTP against the MySQL-protocol test database
 * ({@link TestDatabase#MYSQL}: MariaDB in CI). The application under test is node
 * {@code part-a} with the group {@code orders} of 12 partitions from its properties; a
 * second {@link ElectionService} on the same tables plays node {@code part-b}.
 */
class PartitionsEndpointIntegrationTests {

	private static final TestDatabase DATABASE = TestDatabase.MYSQL;

	private static final LeaseTables TABLES = new LeaseTables("boot_part_lease", "boot_part_candidate");

	private static final ElectionSettings SETTINGS = ElectionSettings.of(Duration.ofSeconds(2), Duration.ofMillis(400));

	private static HikariDataSource dataSource;

	private static ConfigurableApplicationContext application;

	private static ElectionService otherNode;

	private static PartitionGroup thisGroup;

	private static PartitionGroup otherGroup;

	@BeforeAll
	static void start() {
		dataSource = DATABASE.dataSource(4);
		DATABASE.dropTables(dataSource, TABLES.allTables().toArray(String[]::new));
		LeaseSchema.create(dataSource, SqlDialect.forName(DATABASE.platform()), TABLES);
		application = TestApplication.start(DATABASE, true, new Class<?>[0], "leader-election.node-id=part-a",
				"leader-election.lease-duration=2s", "leader-election.renew-interval=400ms",
				"leader-election.jdbc.table-name=" + TABLES.leaseTable(),
				"leader-election.jdbc.candidate-table-name=" + TABLES.candidateTable(),
				"leader-election.jdbc.initialize-schema=never", "leader-election.partitions.orders.count=12",
				"leader-election.partitions.orders.settle-time=1s",
				"management.endpoints.web.exposure.include=partitions",
				"management.endpoint.partitions.access=unrestricted");
		thisGroup = application.getBean(PartitionGroups.class).group("orders");
		PartitionGroups otherGroups = new PartitionGroups(new JdbcPartitionPins(new JdbcStore(dataSource,
				SqlDialect.forName(DATABASE.platform()), TABLES, SETTINGS.statementTimeout())));
		otherNode = new ElectionService(new JdbcLeaseRepository(dataSource, SqlDialect.forName(DATABASE.platform()),
				TABLES, SETTINGS.statementTimeout()), SETTINGS, "part-b", LeadershipListener.NONE);
		otherGroup = otherGroups.create(otherNode, "orders", 12, new PartitionSettings(Duration.ofSeconds(1), 16));
		otherNode.start();
		otherGroup.start();
		await().atMost(Duration.ofSeconds(20))
			.until(() -> thisGroup.ownedPartitions().size() == 6 && otherGroup.ownedPartitions().size() == 6
					&& thisGroup.status().members().size() == 2);
	}

	@AfterAll
	static void stop() {
		if (otherGroup != null) {
			otherGroup.stop();
		}
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

	@Test
	@SuppressWarnings("unchecked")
	void readsEveryGroup() throws Exception {
		HttpResponse<String> response = send("GET", "", null);
		assertThat(response.statusCode()).isEqualTo(200);
		String body = response.body();
		assertThat((String) JsonPath.read(body, "$.nodeId")).isEqualTo("part-a");
		assertThat((Integer) JsonPath.read(body, "$.groups.orders.count")).isEqualTo(12);
		assertThat((Map<String, Object>) JsonPath.read(body, "$.groups.orders.partitionsPerNode"))
			.containsOnlyKeys("part-a", "part-b");
		assertThat((List<String>) JsonPath.read(body, "$.groups.orders.members")).containsExactly("part-a", "part-b");
		assertThat((List<Object>) JsonPath.read(body, "$.groups.orders.partitions")).hasSize(12);
		assertThat((List<Integer>) JsonPath.read(body, "$.groups.orders.partitions[*].partition")).containsExactly(0, 1,
				2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
		assertThat((List<String>) JsonPath.read(body, "$.groups.orders.partitions[*].owner")).hasSize(12);
		assertThat((List<Object>) JsonPath.read(body, "$.groups.orders.partitions[*].term")).hasSize(12);
		assertThat((String) JsonPath.read(body, "$.groups.orders.settleTime")).isEqualTo("PT1S");
		assertThat((String) JsonPath.read(body, "$.groups.orders.age")).startsWith("PT");
		assertThat((List<Object>) JsonPath.read(body, "$.groups.orders.pendingMoves")).isNotNull();
	}

	@Test
	void unknownGroupIsNotFound() throws Exception {
		HttpResponse<String> response = send("GET", "/nothing", null);
		assertThat(response.statusCode()).isEqualTo(404);
		assertThat((String) JsonPath.read(response.body(), "$.message"))
			.isEqualTo("This node has no partition group 'nothing'; its groups are [orders]");
	}

	@Test
	void malformedBodyIsRefusedBeforeTheActuatorBindsIt() throws Exception {
		// The web stack's own 400 and error body, as for any actuator write.
		assertThat(send("POST", "/orders", "{\"partition\":").statusCode()).isEqualTo(400);
	}

	@ParameterizedTest(name = "{0} {1} {2}")
	@CsvSource(delimiter = '|', nullValues = "none", value = {
			"POST|/orders|{\"partition\":0,\"nodeId\":\"part-gone\"}|Node 'part-gone' is not a live member of partition group 'orders'",
			"POST|/orders|{\"partition\":12,\"nodeId\":\"part-b\"}|Partition group 'orders' has partitions 0 to 11",
			"POST|/orders|{\"partition\":-1,\"nodeId\":\"part-b\"}|Partition group 'orders' has partitions 0 to 11",
			"POST|/nothing|{\"partition\":0,\"nodeId\":\"part-b\"}|This node has no partition group 'nothing'",
			"POST|/orders|{\"partition\":\"x\",\"nodeId\":\"part-b\"}|partition must be an integer but was 'x'",
			"POST|/orders|{\"nodeId\":\"part-b\"}|Missing field partition in the request body; the fields are [partition, nodeId]",
			"POST|/orders|{\"partition\":1,\"node\":\"part-b\"}|Unknown field(s) [node] in the request body; the fields are [partition, nodeId]",
			"POST|/orders|{}|Missing fields partition, nodeId in the request body; the fields are [partition, nodeId]",
			"DELETE|/orders|none|Missing query parameter partition; the only query parameter is partition",
			"DELETE|/orders?partition=1&node=part-b|none|Unknown query parameter(s) [node]; the only query parameter is partition",
			"DELETE|/orders?partition=abc|none|partition must be an integer but was 'abc'",
			"DELETE|/orders?partition=99|none|Partition group 'orders' has partitions 0 to 11",
			"DELETE|/nothing?partition=1|none|This node has no partition group 'nothing'" })
	void refusesABadRequestWithItsReason(String method, String path, String body, String message) throws Exception {
		HttpResponse<String> response = send(method, path, body);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		assertThat((String) JsonPath.read(response.body(), "$.message")).startsWith(message);
	}

	@Test
	void pinsAPartitionToTheOtherNodeAndUnpinsIt() throws Exception {
		int partition = thisGroup.ownedPartitions().first();
		HttpResponse<String> pinned = send("POST", "/orders",
				"{\"partition\":" + partition + ",\"nodeId\":\"part-b\"}");
		assertThat(pinned.statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10)).until(() -> otherGroup.isOwner(partition));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> "part-b".equals(
					JsonPath.read(send("GET", "/orders", null).body(), "$.partitions[" + partition + "].pinnedTo")));
		HttpResponse<String> unpinned = send("DELETE", "/orders?partition=" + partition, null);
		assertThat(unpinned.statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !((Map<?, ?>) JsonPath.read(send("GET", "/orders", null).body(),
					"$.partitions[" + partition + "]"))
				.containsKey("pinnedTo"));
	}

	@Test
	void refusesAPinToANodeThatIsNotAMember() throws Exception {
		HttpResponse<String> response = send("POST", "/orders", "{\"partition\":0,\"nodeId\":\"part-gone\"}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(new JdbcPartitionPins(
				new JdbcStore(dataSource, SqlDialect.forName(DATABASE.platform()), TABLES, SETTINGS.statementTimeout()))
			.pins("orders")).doesNotContainValue("part-gone");
	}

	@Test
	void refusesAPartitionOutOfRange() throws Exception {
		HttpResponse<String> response = send("POST", "/orders", "{\"partition\":12,\"nodeId\":\"part-b\"}");
		assertThat(response.statusCode()).isEqualTo(400);
	}

	private static HttpResponse<String> send(String method, String path, String json)
			throws IOException, InterruptedException {
		return new ActuatorClient(application, "local.server.port", "/actuator/partitions").send(method, path, json);
	}

}
