package io.github.dbleader.autoconfigure.endpoint;

import java.net.http.HttpResponse;
import java.time.Duration;

import io.github.dbleader.autoconfigure.ActuatorClient;
import io.github.dbleader.autoconfigure.TestApplication;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code leader} endpoint follows the actuator's exposure and access rules: nothing
 * over HTTP unless exposed, and writes only with unrestricted access.
 */
class LeaderEndpointExposureTests {

	private static final String[] TABLES = { "leader-election.jdbc.table-name=boot_exposure_lease",
			"leader-election.jdbc.candidate-table-name=boot_exposure_candidate" };

	@Test
	void notExposedByDefault() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			assertThat(send(context, "GET", null).statusCode()).isEqualTo(404);
			assertThat(send(context, "POST", "{}").statusCode()).isEqualTo(404);
		}
	}

	@Test
	void exposedEndpointIsReadOnlyByDefault() throws Exception {
		try (ConfigurableApplicationContext context = start("management.endpoints.web.exposure.include=leader")) {
			Election election = context.getBean(ElectionService.class).election("default");
			await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
			long term = election.term();
			assertThat(send(context, "GET", null).statusCode()).isEqualTo(200);
			assertThat(send(context, "POST", "{\"nodeId\":\"exposure-node\"}").statusCode()).isEqualTo(405);
			assertThat(send(context, "DELETE", null).statusCode()).isEqualTo(405);
			assertThat(election.leaderInfo().reelectionPending()).isFalse();
			assertThat(election.leaderInfo().handoverTo()).isNull();
			assertThat(election.term()).isEqualTo(term);
		}
	}

	@Test
	void writesNeedUnrestrictedAccess() throws Exception {
		try (ConfigurableApplicationContext context = start("management.endpoints.web.exposure.include=leader",
				"management.endpoint.leader.access=unrestricted")) {
			Election election = context.getBean(ElectionService.class).election("default");
			await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
			assertThat(send(context, "DELETE", null).statusCode()).isEqualTo(200);
		}
	}

	private static ConfigurableApplicationContext start(String... properties) {
		String[] all = new String[properties.length + TABLES.length + 3];
		System.arraycopy(TABLES, 0, all, 0, TABLES.length);
		System.arraycopy(properties, 0, all, TABLES.length, properties.length);
		all[all.length - 3] = "leader-election.node-id=exposure-node";
		all[all.length - 2] = "leader-election.lease-duration=3s";
		all[all.length - 1] = "leader-election.renew-interval=200ms";
		return TestApplication.start(TestDatabase.H2, true, new Class<?>[0], all);
	}

	private static HttpResponse<String> send(ConfigurableApplicationContext context, String method, String json)
			throws Exception {
		return new ActuatorClient(context).send(method, "/default", json);
	}

}
