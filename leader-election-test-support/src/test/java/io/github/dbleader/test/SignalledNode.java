package io.github.dbleader.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;

/**
 * The program {@link NodeProcessTests} runs as a process: it serves {@code GET /ready} on
 * the port given as its argument, logs its start and its shutdown, and exits with status
 * 3 at once when the argument is {@code exit}.
 */
public final class SignalledNode {

	private SignalledNode() {
	}

	/**
	 * Serve until signalled.
	 * @param args the port, or {@code exit}
	 * @throws IOException if the port cannot be bound
	 * @throws InterruptedException never: the process ends by a signal
	 */
	public static void main(String[] args) throws IOException, InterruptedException {
		System.out.println("greeting " + System.getProperty("node.greeting"));
		if (args[0].equals("exit")) {
			System.out.println("exiting at once");
			System.exit(3);
		}
		HttpServer server = HttpServer
			.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0])), 0);
		server.createContext("/ready", (exchange) -> {
			byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		server.start();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("stopping")));
		System.out.println("node ready");
		Thread.currentThread().join(); // runs until signalled
	}

}
