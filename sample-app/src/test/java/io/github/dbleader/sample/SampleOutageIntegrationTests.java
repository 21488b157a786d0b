package io.github.dbleader.sample;

import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import io.github.dbleader.test.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * One node of the sample with its settings (pool wait 3 s, the bounded {@code db} health
 * indicator) on the MySQL-protocol test database, reached through a {@link TcpProxy} that
 * then lets nothing through: the status page's data ({@code /actuator/leader}) and
 * {@code /actuator/health} as a whole keep answering within their bounds.
 */
class SampleOutageIntegrationTests {

	/** The leader endpoint: statement timeout (250 ms), a round trip and slack. */
	private static final Duration LEADER_BOUND = Duration.ofSeconds(1);

	/** The whole health: the sample's pool wait (3 s), validation (1 s) and slack. */
	private static final Duration HEALTH_BOUND = Duration.ofSeconds(5);

	private static final Pattern SERVER_URL = Pattern.compile("(jdbc:(?:mysql|mariadb)://)([^/:?,]+)(?::(\\d+))?(.*)");

	private SampleDatabase database;

	private TcpProxy proxy;

	private SampleNode node;

	@BeforeEach
	void start() {
		this.database = SampleDatabase.connect();
		Matcher url = SERVER_URL.matcher(SampleDatabase.url());
		assertThat(url.matches()).as("server URL %s", SampleDatabase.url()).isTrue();
		int port = (url.group(3) != null) ? Integer.parseInt(url.group(3)) : 3306;
		this.proxy = TcpProxy.start(new InetSocketAddress(url.group(2), port));
		String proxied = url.group(1) + "127.0.0.1:" + this.proxy.port() + url.group(4);
		List<String> arguments = this.database.arguments()
			.stream()
			.map((argument) -> argument.startsWith("--spring.datasource.url=") ? "--spring.datasource.url=" + proxied
					: argument)
			.toList();
		this.node = SampleNode.start("outage-a", List
			.of(arguments, List.of("--leader-election.lease-duration=3s", "--leader-election.renew-interval=500ms"))
			.stream()
			.flatMap(List::stream)
			.toList());
	}

	@AfterEach
	void stop() {
		if (this.proxy != null) {
			this.proxy.restore();
		}
		if (this.node != null) {
			this.node.close();
		}
		if (this.proxy != null) {
			this.proxy.close();
		}
		if (this.database != null) {
			this.database.dropTables();
		}
	}

	@Test
	void leaderEndpointAndWholeHealthAnswerWhileTheDatabaseIsCutOff() {
		await().atMost(Duration.ofSeconds(10)).until(this.node.election()::isLeader);
		// Unbounded: the first requests also initialize the web stack.
		assertThat(status(this.node.send("GET", "/actuator/health", null).body())).isEqualTo("UP");
		assertThat(this.node.send("GET", "/actuator/leader/default", null).body()).contains("\"stale\":false");

		this.proxy.cut(TcpProxy.Outage.BLACKHOLE);
		assertThat(get("/actuator/leader/default", LEADER_BOUND)).contains("\"stale\":true", "\"leaseAge\":\"PT");
		String health = get("/actuator/health", HEALTH_BOUND);
		assertThat((String) JsonPath.read(health, "$.components.db.details.validationQuery")).isEqualTo("isValid(1)");
		assertThat((String) JsonPath.read(health, "$.components.db.status")).isEqualTo("DOWN");
		// The db indicator is DOWN at once; the leader's after lease - guard (2.4 s).
		await().atMost(Duration.ofSeconds(6))
			.until(() -> get("/actuator/health", HEALTH_BOUND).contains("\"error\":\"database unreachable\""));
		assertThat(get("/actuator/leader/default", LEADER_BOUND)).contains("\"stale\":true",
				"\"databaseUnreachableFor\":\"PT", "\"thisNodeLeads\":false");

		this.proxy.restore();
		await().atMost(Duration.ofSeconds(15))
			.until(() -> status(this.node.send("GET", "/actuator/health", null).body()).equals("UP"));
	}

	private static String status(String health) {
		return JsonPath.read(health, "$.status");
	}

	private String get(String path, Duration bound) {
		HttpResponse<String> response = assertTimeoutPreemptively(bound, () -> this.node.send("GET", path, null));
		assertThat(response.statusCode()).as(response.body()).isIn(200, 503);
		return response.body();
	}

}
