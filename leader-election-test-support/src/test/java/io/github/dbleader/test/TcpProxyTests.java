package io.github.dbleader.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.dbleader.test.TcpProxy.Outage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link TcpProxy}, in front of an echo server that also records what reached
 * it.
 */
class TcpProxyTests {

	/** How long a client waits to conclude that no reply comes. */
	private static final int SILENCE_MILLIS = 300;

	private EchoServer server;

	private TcpProxy proxy;

	private final List<Socket> clients = new ArrayList<>();

	@BeforeEach
	void start() throws IOException {
		this.server = new EchoServer();
		this.proxy = TcpProxy.start("test", this.server.address());
	}

	@AfterEach
	void stop() throws IOException {
		for (Socket client : this.clients) {
			client.close();
		}
		this.proxy.close();
		this.server.close();
	}

	@Test
	void forwardsBothWays() throws IOException {
		Socket client = connect();
		assertThat(exchange(client, "SELECT 1")).isEqualTo("SELECT 1");
	}

	@Test
	void blackholeHoldsEverythingAndDeliversItWhenRestored() throws IOException {
		Socket client = connect();
		exchange(client, "before");
		this.proxy.cut(Outage.BLACKHOLE);
		write(client, "held");
		await("bytes held").atMost(Duration.ofSeconds(5)).until(() -> this.proxy.bytesHeld() == 4);
		assertNoReply(client);
		assertThat(this.server.received()).isEqualTo("before");
		Socket during = new Socket();
		this.clients.add(during);
		during.connect(this.proxy.address(), 1000);
		write(during, "new");
		assertNoReply(during);
		this.proxy.restore();
		assertThat(read(client, 4)).isEqualTo("held");
		assertThat(read(during, 3)).isEqualTo("new");
		assertThat(this.proxy.bytesHeld()).isZero();
	}

	@Test
	void refusedResetsConnectionsAndRefusesNewOnesUntilRestored() throws IOException {
		Socket client = connect();
		exchange(client, "before");
		client.setSoTimeout(2000);
		this.proxy.cut(Outage.REFUSED);
		// Right after cut returns: the port must be closed by then, not a moment later.
		assertThatExceptionOfType(ConnectException.class)
			.isThrownBy(() -> new Socket().connect(this.proxy.address(), 1000));
		// Reset at once, not at its next use: a read times out only if the connection
		// lives on.
		assertThatExceptionOfType(SocketException.class).isThrownBy(() -> client.getInputStream().read())
			.withMessageContaining("reset");
		this.proxy.restore();
		assertThat(exchange(connect(), "again")).isEqualTo("again");
	}

	@Test
	void refusedClosesThePortBeforeCutReturns() throws IOException {
		// The kernel completes handshakes until the accepting thread leaves accept; a cut
		// that returned earlier let a connection through now and then. Repeat to catch
		// it.
		for (int i = 0; i < 100; i++) {
			exchange(connect(), "before");
			this.proxy.cut(Outage.REFUSED);
			assertThatExceptionOfType(ConnectException.class)
				.isThrownBy(() -> new Socket().connect(this.proxy.address(), 1000));
			this.proxy.restore();
		}
	}

	@Test
	void delayedRepliesArriveLateAndInOrder() throws IOException {
		Socket client = connect();
		this.proxy.delayReplies(Duration.ofMillis(400));
		long start = System.nanoTime();
		write(client, "one");
		write(client, "two");
		assertThat(read(client, 6)).isEqualTo("onetwo");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
		this.proxy.delayReplies(Duration.ZERO);
		start = System.nanoTime();
		exchange(client, "now");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(400));
	}

	@Test
	void lostReplyStatementReachesTheServerAndSilencesItsConnection() throws IOException {
		Socket client = connect();
		Socket other = connect();
		this.proxy.loseRepliesTo("SET renewed_at");
		assertThat(exchange(client, "SELECT 1")).isEqualTo("SELECT 1");
		write(client, "UPDATE SET renewed_at");
		await("the statement reached the server").atMost(Duration.ofSeconds(5))
			.until(() -> this.server.received().endsWith("UPDATE SET renewed_at"));
		assertNoReply(client);
		assertThat(this.proxy.lostReplies()).isOne();
		assertThat(this.proxy.firstLossMillis()).isPositive();
		this.proxy.stopLosingReplies();
		write(client, "SELECT 2");
		assertNoReply(client);
		assertThat(exchange(other, "UPDATE SET renewed_at")).isEqualTo("UPDATE SET renewed_at");
		assertThat(this.proxy.lostReplies()).isOne();
	}

	@Test
	void statementActionRunsOnceAfterTheStatementReachedTheServerAndBeforeItsReply() throws Exception {
		Socket client = connect();
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger runs = new AtomicInteger();
		StringBuilder receivedWhenRun = new StringBuilder();
		this.proxy.onStatement("LOCK IN SHARE MODE", () -> {
			runs.incrementAndGet();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.server.received().endsWith("SHARE MODE"));
			receivedWhenRun.append(this.server.received());
			awaitQuietly(release);
		});
		assertThat(exchange(client, "SELECT 1")).isEqualTo("SELECT 1");
		write(client, "SELECT f LOCK IN SHARE MODE");
		assertNoReply(client);
		assertThat(runs).hasValue(1);
		release.countDown();
		assertThat(read(client, 27)).isEqualTo("SELECT f LOCK IN SHARE MODE");
		assertThat(receivedWhenRun.toString()).endsWith("SELECT f LOCK IN SHARE MODE");
		assertThat(exchange(client, "LOCK IN SHARE MODE")).isEqualTo("LOCK IN SHARE MODE");
		assertThat(runs).hasValue(1);
	}

	@Test
	void healLiftsEveryFault() throws IOException {
		AtomicInteger runs = new AtomicInteger();
		this.proxy.onStatement("never", runs::incrementAndGet);
		this.proxy.loseRepliesTo("lost");
		this.proxy.delayReplies(Duration.ofSeconds(5));
		this.proxy.cut(Outage.REFUSED);
		this.proxy.heal();
		Socket client = connect();
		long start = System.nanoTime();
		assertThat(exchange(client, "never lost")).isEqualTo("never lost");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		assertThat(this.proxy.lostReplies()).isZero();
		assertThat(runs).hasValue(0);
	}

	private Socket connect() throws IOException {
		Socket client = new Socket();
		this.clients.add(client);
		client.connect(this.proxy.address(), 1000);
		client.setSoTimeout(5000);
		return client;
	}

	private static String exchange(Socket client, String text) throws IOException {
		write(client, text);
		return read(client, text.length());
	}

	private static void write(Socket client, String text) throws IOException {
		OutputStream out = client.getOutputStream();
		out.write(text.getBytes(StandardCharsets.UTF_8));
		out.flush();
	}

	private static String read(Socket client, int length) throws IOException {
		byte[] bytes = client.getInputStream().readNBytes(length);
		return new String(bytes, StandardCharsets.UTF_8);
	}

	private static void assertNoReply(Socket client) throws IOException {
		int timeout = client.getSoTimeout();
		client.setSoTimeout(SILENCE_MILLIS);
		try {
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> client.getInputStream().read());
		}
		finally {
			client.setSoTimeout(timeout);
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Echoes what each connection sends and records everything it received. */
	private static final class EchoServer implements AutoCloseable {

		private final ServerSocket socket;

		private final StringBuffer received = new StringBuffer();

		EchoServer() throws IOException {
			this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
			Thread acceptor = new Thread(this::accept, "echo-accept");
			acceptor.setDaemon(true);
			acceptor.start();
		}

		InetSocketAddress address() {
			return new InetSocketAddress(InetAddress.getLoopbackAddress(), this.socket.getLocalPort());
		}

		String received() {
			return this.received.toString();
		}

		private void accept() {
			while (true) {
				try {
					Socket connection = this.socket.accept();
					Thread echo = new Thread(() -> echo(connection), "echo");
					echo.setDaemon(true);
					echo.start();
				}
				catch (IOException ex) {
					return; // closed
				}
			}
		}

		private void echo(Socket connection) {
			try (connection) {
				InputStream in = connection.getInputStream();
				OutputStream out = connection.getOutputStream();
				byte[] buffer = new byte[1024];
				int read;
				while ((read = in.read(buffer)) >= 0) {
					this.received.append(new String(buffer, 0, read, StandardCharsets.UTF_8));
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// the connection was reset
			}
		}

		@Override
		public void close() throws IOException {
			this.socket.close();
		}

	}

}
