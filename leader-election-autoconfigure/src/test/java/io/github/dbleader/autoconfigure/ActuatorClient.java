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
 * Sends requests to the {@code leader} endpoint of a running application over HTTP.
 */
public final class ActuatorClient {

	private final HttpClient http = HttpClient.newHttpClient();

	private final ConfigurableApplicationContext context;

	/**
	 * Create a client.
	 * @param context an application started with a web server
	 */
	public ActuatorClient(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Send a request to {@code /actuator/leader} + {@code path}.
	 * @param method the HTTP method
	 * @param path the path below the endpoint, e.g. {@code /default}
	 * @param json the body, sent as {@code application/json}; {@code null} for none and no
	 * content type
	 * @return the response
	 */
	public HttpResponse<String> send(String method, String path, @Nullable String json)
			throws IOException, InterruptedException {
		int port = this.context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + port + "/actuator/leader" + path))
			.timeout(Duration.ofSeconds(10));
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		request.method(method,
				(json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
