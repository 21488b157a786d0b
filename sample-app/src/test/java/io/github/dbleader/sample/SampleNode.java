package io.github.dbleader.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One node of the sample application, started in this JVM as
 * {@code java -jar sample-app.jar} would start it: {@link SampleApplication} with command
 * line arguments, which override {@code application.properties} as they do for a user.
 * Each node listens on a random port.
 */
final class SampleNode implements AutoCloseable {

	private static final HttpClient http = HttpClient.newHttpClient();

	private final String nodeId;

	private final ConfigurableApplicationContext context;

	private SampleNode(String nodeId, ConfigurableApplicationContext context) {
		this.nodeId = nodeId;
		this.context = context;
	}

	/**
	 * Start a node.
	 * @param nodeId its node id
	 * @param arguments more command line arguments ({@code --name=value})
	 * @return the running node; close it after the test
	 */
	static SampleNode start(String nodeId, List<String> arguments) {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--leader-election.node-id=" + nodeId,
				"--spring.main.banner-mode=off", "--spring.jmx.enabled=false"));
		all.addAll(arguments);
		return new SampleNode(nodeId, SpringApplication.run(SampleApplication.class, all.toArray(String[]::new)));
	}

	String nodeId() {
		return this.nodeId;
	}

	int port() {
		return this.context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	String url(String path) {
		return "http://localhost:" + port() + path;
	}

	/**
	 * @return this node's view of the sample job's election
	 */
	Election election() {
		return this.context.getBean(ElectionService.class).election(FencedJob.ELECTION);
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	<T> T bean(String name, Class<T> type) {
		return this.context.getBean(name, type);
	}

	/**
	 * @return how many calls of the job {@code @LeaderOnly} skipped on this node
	 */
	double skippedJobCalls() {
		Counter counter = bean(MeterRegistry.class).find("leader.election.leader.only.skipped")
			.tag("election", FencedJob.ELECTION)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	/**
	 * Send an HTTP request to this node.
	 * @param method the method
	 * @param path the path, e.g. {@code /actuator/leader/default}
	 * @param json a JSON body sent as {@code application/json}, or {@code null} for none
	 * @return the response
	 */
	HttpResponse<String> send(String method, String path, @Nullable String json) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(10));
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		request.method(method,
				(json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
		try {
			return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.context.close();
	}

}
