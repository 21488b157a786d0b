package io.github.dbleader.test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link NodeProcess}, running {@link SignalledNode} as a process.
 */
class NodeProcessTests {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	@TempDir
	Path logs;

	@Test
	void startsWithItsArgumentsAndWaitsForTheLogLineAndTheHttpPath() throws Exception {
		try (NodeProcess node = started()) {
			assertThat(node.send(node.request("/ready").GET(), 200)).isEqualTo("ok");
			assertThat(node.log().contains("greeting hello")).isTrue();
			assertThat(node.log().file()).isEqualTo(this.logs.resolve("n.log"));
		}
	}

	@Test
	void isNotReadyWhileItsHttpPathDoesNotAnswer2xx() throws Exception {
		try (NodeProcess node = start("/missing")) {
			assertThatIllegalStateException().isThrownBy(() -> node.awaitReady(Duration.ofSeconds(10)))
				.withMessageContaining("was not ready within 10 s");
			assertThat(node.log().contains("node ready")).isTrue();
		}
	}

	@Test
	void processThatExitsBeforeItIsReadyFailsTheWaitWithItsLog() throws Exception {
		try (NodeProcess node = node("exit").readyWhenLogged("node ready").start("n", this.logs.resolve("n.log"))) {
			assertThatIllegalStateException().isThrownBy(() -> node.awaitReady(START_TIMEOUT))
				.withMessageContaining("exited with 3")
				.withMessageContaining("exiting at once");
		}
	}

	@Test
	void pausedProcessDoesNotAnswerUntilResumed() throws Exception {
		try (NodeProcess node = started()) {
			node.pause();
			assertThat(node.isPaused()).isTrue();
			assertThatIllegalStateException()
				.isThrownBy(() -> node.exchange(node.request("/ready").timeout(Duration.ofMillis(500)).GET()))
				.withMessageContaining("did not answer");
			node.resume();
			assertThat(node.isPaused()).isFalse();
			assertThat(node.send(node.request("/ready").GET(), 200)).isEqualTo("ok");
		}
	}

	@Test
	void terminatedProcessShutsDownGracefully() throws Exception {
		try (NodeProcess node = started()) {
			long mark = node.log().mark();
			node.terminate();
			assertThat(node.awaitExit(Duration.ofSeconds(30))).isEqualTo(128 + 15);
			assertThat(node.isAlive()).isFalse();
			assertThat(node.log().containsSince(mark, "stopping")).isTrue();
		}
	}

	@Test
	void killedProcessIsGoneWithoutShuttingDown() throws Exception {
		try (NodeProcess node = started()) {
			node.kill();
			assertThat(node.isAlive()).isFalse();
			assertThat(node.awaitExit(Duration.ofSeconds(1))).isEqualTo(128 + 9);
			assertThat(node.log().contains("stopping")).isFalse();
		}
	}

	@Test
	void closeEndsAPausedProcess() throws Exception {
		NodeProcess node = started();
		node.pause();
		node.close();
		assertThat(node.isAlive()).isFalse();
	}

	private NodeProcess started() throws IOException, InterruptedException, URISyntaxException {
		NodeProcess node = start("/ready");
		node.awaitReady(START_TIMEOUT);
		return node;
	}

	private NodeProcess start(String readyPath) throws IOException, URISyntaxException {
		int port = NodeProcess.freePort();
		return node(Integer.toString(port)).httpPort(port)
			.readyWhenLogged("node ready")
			.readyWhenHttpOk(readyPath)
			.start("n", this.logs.resolve("n.log"));
	}

	private static NodeProcess.Builder node(String argument) throws URISyntaxException {
		String classes = Path.of(SignalledNode.class.getProtectionDomain().getCodeSource().getLocation().toURI())
			.toString();
		return NodeProcess.mainClass(classes, SignalledNode.class.getName())
			.systemProperty("node.greeting", "hello")
			.arguments(argument);
	}

}
