package io.github.dbleader.benchmarks.jobruns;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The load benchmark's hook ({@code bench.business-load-port} above 0), the same as the
 * sample's {@code /api/business-load}:
 * {@code POST /business-load?connections=2&seconds=30} holds that many connections of the
 * application's pool with {@code SELECT SLEEP(seconds)} on background threads and answers
 * at once. Served by the JDK's own HTTP server on a port of its own, so that every
 * benchmark application has it, with a web server or without.
 */
public class PoolLoadHook implements DisposableBean {

	private static final Logger logger = LoggerFactory.getLogger(PoolLoadHook.class);

	private final JdbcTemplate jdbc;

	private final HttpServer server;

	/**
	 * Start serving the hook.
	 * @param jdbc the application's template (its pool)
	 * @param port the port, on the loopback address
	 * @throws IOException if the port cannot be bound
	 */
	public PoolLoadHook(JdbcTemplate jdbc, int port) throws IOException {
		this.jdbc = jdbc;
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
		this.server.createContext("/business-load", this::hold);
		this.server.start();
	}

	private void hold(HttpExchange exchange) throws IOException {
		Map<String, Integer> query = new HashMap<>();
		String raw = exchange.getRequestURI().getRawQuery();
		for (String pair : (raw != null) ? raw.split("&") : new String[0]) {
			String[] parts = pair.split("=", 2);
			if (parts.length == 2 && parts[1].matches("\\d{1,3}")) {
				query.put(parts[0], Integer.parseInt(parts[1]));
			}
		}
		int connections = query.getOrDefault("connections", 0);
		int seconds = query.getOrDefault("seconds", 0);
		boolean valid = "POST".equals(exchange.getRequestMethod()) && connections >= 1 && connections <= 50
				&& seconds >= 1 && seconds <= 60;
		if (valid) {
			for (int i = 1; i <= connections; i++) {
				Thread thread = new Thread(() -> sleepInDatabase(seconds), "business-load-" + i);
				thread.setDaemon(true);
				thread.start();
			}
		}
		byte[] body = (valid ? "holding " + connections + " connections for " + seconds + " s"
				: "POST with connections 1 to 50 and seconds 1 to 60")
			.getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(valid ? 200 : 400, body.length);
		exchange.getResponseBody().write(body);
		exchange.close();
	}

	private void sleepInDatabase(int seconds) {
		try {
			this.jdbc.queryForObject("SELECT SLEEP(?)", Integer.class, seconds);
		}
		catch (DataAccessException ex) {
			logger.info("Business load query failed: {}", ex.toString());
		}
	}

	@Override
	public void destroy() {
		this.server.stop(0);
	}

}
