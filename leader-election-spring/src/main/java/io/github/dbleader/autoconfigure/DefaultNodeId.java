package io.github.dbleader.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;

import io.github.dbleader.election.ElectionService;

import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The default node id, {@code hostname:port:pid} (seed 001): readable in the lease table
 * and unique among instances on one host thanks to the process id. The port is that of
 * the web server when known at start-up ({@code local.server.port}, else a fixed
 * {@code server.port}); it is left out otherwise.
 */
final class DefaultNodeId {

	private DefaultNodeId() {
	}

	static String of(Environment environment) {
		String port = port(environment);
		String suffix = ((port != null) ? ":" + port : "") + ":" + ProcessHandle.current().pid();
		String host = hostname();
		int room = ElectionService.MAX_NODE_ID_LENGTH - suffix.length();
		return ((host.length() > room) ? host.substring(0, room) : host) + suffix;
	}

	private static String port(Environment environment) {
		for (String property : new String[] { "local.server.port", "server.port" }) {
			Integer port = environment.getProperty(property, Integer.class);
			if (port != null && port > 0) {
				return port.toString();
			}
		}
		return null;
	}

	private static String hostname() {
		String host = System.getenv("HOSTNAME");
		if (StringUtils.hasText(host)) {
			return host;
		}
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "unknown-host";
		}
	}

}
