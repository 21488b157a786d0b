package io.github.dbleader.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Sends requests to the {@code leader} endpoint of a running application over HTTP: by
 * default at {@code /actuator/leader} on the application's port, or wherever the test
 * puts it (a management port of its own, other base paths).
 */
public final class ActuatorClient {

	private final HttpClient http = HttpClient.newHttpClient();

	private final ConfigurableApplicationContext context;

	private final String portProperty;

	private final String endpointPath;

	/**
	 * Create a client for {@code /actuator/leader} on the application's port.
	 * @param context an application started with a web server
	 */
	public ActuatorClient(ConfigurableApplicationContext context) {
		this(context, "local.server.port", "/actuator/leader");
	}

	/**
	 * Create a client for the endpoint on another port or path.
	 * @param context an application started with a web server
	 * @param portProperty the property that holds the port, e.g.
	 * {@code local.management.port}
	 * @param endpointPath the full path of the endpoint on that port, e.g.
	 * {@code /management/manage/elections}
	 */
	public ActuatorClient(ConfigurableApplicationContext context, String portProperty, String endpointPath) {
		this.context = context;
		this.portProperty = portProperty;
		this.endpointPath = endpointPath;
	}

	/**
	 * Send a request to the endpoint path + {@code path}.
	 * @param method the HTTP method
	 * @param path the path below the endpoint, e.g. {@code /default}
	 * @param json the body, sent as {@code application/json}; {@code null} for none and
	 * no content type
	 * @return the response
	 */
	public HttpResponse<String> send(String method, String path, @Nullable String json)
			throws IOException, InterruptedException {
		int port = this.context.getEnvironment().getRequiredProperty(this.portProperty, Integer.class);
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + port + this.endpointPath + path))
			.timeout(Duration.ofSeconds(10));
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		request.method(method,
				(json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
