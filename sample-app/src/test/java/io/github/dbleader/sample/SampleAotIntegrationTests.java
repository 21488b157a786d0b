package io.github.dbleader.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.github.dbleader.test.NodeProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's executable jar, ahead-of-time processed by the build
 * (spring-boot-maven-plugin's {@code process-aot}), started twice with
 * {@code -Dspring.aot.enabled=true}: the bean definitions are the generated ones, not
 * found by classpath scanning and conditions at start-up. The two instances share an H2
 * database file (H2's automatic mixed mode), elect one leader, serve the leader endpoint
 * and record fenced job runs under the leader's term. This is the JVM in AOT mode; a
 * GraalVM native image is not built here.
 */
class SampleAotIntegrationTests {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	private final List<NodeProcess> nodes = new ArrayList<>();

	@TempDir
	Path directory;

	@AfterEach
	void stop() {
		this.nodes.forEach(NodeProcess::close);
	}

	@Test
	void twoAotProcessedInstancesElectOneLeaderAndFenceItsJobRuns() throws Exception {
		Path jar = executableJar();
		String database = "jdbc:h2:file:" + this.directory.resolve("db") + ";AUTO_SERVER=TRUE;MODE=MySQL";
		NodeProcess a = start(jar, "aot-a", database);
		NodeProcess b = start(jar, "aot-b", database);
		a.awaitReady(START_TIMEOUT);
		b.awaitReady(START_TIMEOUT);
		for (NodeProcess node : this.nodes) {
			assertThat(node.log().contains("Starting AOT-processed SampleApplication")).as(node.name()).isTrue();
		}

		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			String leaderOfA = a.send(a.request("/actuator/leader/default").GET(), 200);
			String leaderOfB = b.send(b.request("/actuator/leader/default").GET(), 200);
			assertThat(Stream.of(leaderOfA, leaderOfB).filter((body) -> body.contains("\"thisNodeLeads\":true")))
				.hasSize(1);
		});
		String view = a.send(a.request("/actuator/leader/default").GET(), 200);
		String leader = view.contains("\"leader\":\"aot-a\"") ? "aot-a" : "aot-b";
		assertThat(view).contains("\"leader\":\"" + leader + "\"");

		// The leader's job records its runs in transactions fenced by its term.
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(b.send(b.request("/api/job-runs?limit=5").GET(), 200))
				.contains("\"nodeId\":\"" + leader + "\""));
		String runs = b.send(b.request("/api/job-runs?limit=50").GET(), 200);
		assertThat(runs).doesNotContain("\"nodeId\":\"" + (leader.equals("aot-a") ? "aot-b" : "aot-a") + "\"");
	}

	private NodeProcess start(Path jar, String id, String database) throws IOException {
		int port = NodeProcess.freePort();
		NodeProcess node = NodeProcess.jar(jar)
			.jvmOptions("-Dspring.aot.enabled=true")
			.arguments("--server.port=" + port, "--leader-election.node-id=" + id,
					"--spring.datasource.url=" + database, "--spring.main.banner-mode=off",
					"--spring.profiles.active=no-partitions", "--sample.lock-job-cron=-", "--sample.job-interval=200ms")
			.httpPort(port)
			.readyWhenLogged("Started SampleApplication")
			.start(id, this.directory.resolve(id + ".log"));
		this.nodes.add(node);
		return node;
	}

	private static Path executableJar() throws IOException {
		try (Stream<Path> files = Files.list(Path.of("target"))) {
			return files.filter((file) -> file.getFileName().toString().matches("sample-app-.*\\.jar"))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No sample-app jar in target/: run 'package' first"));
		}
	}

}
