package io.github.dbleader.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One process of the sample application (its executable jar), with its own proxy to the
 * database, its log in a file, and the means to pause, resume, terminate or kill it and to
 * ask its actuator endpoints.
 */
final class SampleNode implements AutoCloseable {

	/** Lease duration L the processes run with. */
	static final Duration LEASE = Duration.ofSeconds(3);

	/** Renew interval R. */
	static final Duration RENEW = Duration.ofMillis(500);

	/** Guard G: the default, a fifth of the lease. */
	static final Duration GUARD = LEASE.dividedBy(5);

	/** Statement timeout: the default, half the renew interval. */
	static final Duration STATEMENT_TIMEOUT = RENEW.dividedBy(2);

	/** Pause between job runs. */
	static final Duration JOB_INTERVAL = Duration.ofMillis(100);

	/** Application pool size: small, so that the business-load hook can exhaust it. */
	static final int POOL_SIZE = 2;

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

	private static final JsonMapper json = JsonMapper.builder().build();

	/** Processes not closed yet: stopped by a shutdown hook if the test JVM ends without closing them. */
	private static final Set<SampleNode> unclosed = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> unclosed.forEach(SampleNode::close), "stop-sample-processes"));
	}

	private final String id;

	private final int port;

	private final FaultProxy proxy;

	private final Process process;

	private final NodeLog log;

	private volatile boolean paused;

	private SampleNode(String id, int port, FaultProxy proxy, Process process, NodeLog log) {
		this.id = id;
		this.port = port;
		this.proxy = proxy;
		this.process = process;
		this.log = log;
	}

	/**
	 * Start a process; it connects to the database through a new proxy.
	 * @param id node id
	 * @param jar the sample's executable jar
	 * @param database the database
	 * @param logDirectory where the process's output goes ({@code <id>.log})
	 * @return the node, not yet necessarily started
	 * @throws IOException if the process or proxy cannot start
	 */
	static SampleNode start(String id, Path jar, FaultDatabase database, Path logDirectory) throws IOException {
		return start(id, id, jar, database, logDirectory);
	}

	/**
	 * Start a process whose log has a name of its own; it connects to the database through
	 * a new proxy.
	 * @param id node id
	 * @param logName the log's name ({@code <logName>.log}), so that two processes with one
	 * node id keep separate logs
	 * @param jar the sample's executable jar
	 * @param database the database
	 * @param logDirectory where the process's output goes
	 * @return the node, not yet necessarily started
	 * @throws IOException if the process or proxy cannot start
	 */
	static SampleNode start(String id, String logName, Path jar, FaultDatabase database, Path logDirectory)
			throws IOException {
		FaultProxy proxy = new FaultProxy(id, database.address());
		int port = Ports.free();
		List<String> command = new ArrayList<>();
		command.add(ProcessHandle.current().info().command().orElse("java"));
		// Small heap, quick start-up: several of these share two cores.
		command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar.toString()));
		command.add("--server.port=" + port);
		command.add("--leader-election.node-id=" + id);
		command.add("--spring.datasource.url=" + database.urlThrough(proxy.port()));
		command.add("--spring.datasource.username=" + database.username());
		command.add("--spring.datasource.password=" + database.password());
		command.add("--spring.datasource.hikari.maximum-pool-size=" + POOL_SIZE);
		command.add("--leader-election.lease-duration=" + LEASE.toMillis() + "ms");
		command.add("--leader-election.renew-interval=" + RENEW.toMillis() + "ms");
		command.add("--leader-election.jdbc.table-name=" + FaultDatabase.LEASE_TABLE);
		command.add("--leader-election.jdbc.candidate-table-name=" + FaultDatabase.CANDIDATE_TABLE);
		command.add("--sample.job-runs-table=" + FaultDatabase.JOB_RUNS_TABLE);
		command.add("--sample.job-interval=" + JOB_INTERVAL.toMillis() + "ms");
		command.add("--sample.job-duration=20ms");
		command.add("--sample.business-load-endpoint=true");
		command.add("--spring.main.banner-mode=off");
		command.add("--logging.pattern.dateformat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
		Files.createDirectories(logDirectory);
		Path logFile = logDirectory.resolve(logName + ".log");
		Process process;
		try {
			process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(logFile.toFile())
				.start();
		}
		catch (IOException ex) {
			proxy.close();
			throw ex;
		}
		SampleNode node = new SampleNode(id, port, proxy, process, new NodeLog(logFile));
		unclosed.add(node);
		return node;
	}

	String id() {
		return this.id;
	}

	long pid() {
		return this.process.pid();
	}

	FaultProxy proxy() {
		return this.proxy;
	}

	NodeLog log() {
		return this.log;
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	boolean isPaused() {
		return this.paused;
	}

	/** @return whether the application reported that it started; fails if the process died */
	boolean hasStarted() {
		if (!this.process.isAlive()) {
			throw new IllegalStateException("Node " + this.id + " exited with " + this.process.exitValue()
					+ " before it started; its log ends with:\n" + this.log.tail(40));
		}
		return this.log.contains("Started SampleApplication");
	}

	/** SIGSTOP: the whole process freezes, as in a long GC or a suspended VM. */
	void pause() {
		signal("STOP");
		this.paused = true;
	}

	/** SIGCONT. */
	void resume() {
		signal("CONT");
		this.paused = false;
	}

	/** SIGKILL, and wait for the process to be gone. */
	void kill() {
		this.process.destroyForcibly();
		awaitExit();
	}

	/** SIGTERM: a graceful shutdown. Waits for the process to exit. */
	void terminate() {
		this.process.destroy();
		awaitExit();
	}

	private void awaitExit() {
		try {
			if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Node " + this.id + " did not exit within 30 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("kill -" + signal + " " + pid() + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * {@code GET /actuator/leader/default}.
	 * @return the election as this node describes it
	 */
	JsonNode election() {
		return json.readTree(send(request("/actuator/leader/" + FaultDatabase.ELECTION).GET(), 200));
	}

	/**
	 * Whether this node believes it leads: the {@code leader.election.leader} gauge, which
	 * reads the local deadline without touching the database.
	 * @return {@code true} if it leads
	 */
	boolean believesItLeads() {
		return meter("leader.election.leader", "election:" + FaultDatabase.ELECTION) == 1.0;
	}

	/**
	 * The {@code leader.election.transitions} counter of this node.
	 * @return granted plus revoked so far
	 */
	double transitions() {
		return meter("leader.election.transitions", "election:" + FaultDatabase.ELECTION);
	}

	/**
	 * The {@code leader.election.transitions} counter of one type.
	 * @param type {@code granted} or {@code revoked}
	 * @return the count so far
	 */
	double transitions(String type) {
		return meter("leader.election.transitions", "election:" + FaultDatabase.ELECTION, "type:" + type);
	}

	/**
	 * Read a meter's first measurement.
	 * @param name meter name
	 * @param tags tags as {@code key:value}
	 * @return the value, 0 if the meter does not exist (yet)
	 */
	double meter(String name, String... tags) {
		StringBuilder path = new StringBuilder("/actuator/metrics/").append(name);
		for (int i = 0; i < tags.length; i++) {
			path.append((i == 0) ? '?' : '&').append("tag=").append(tags[i]);
		}
		HttpResponse<String> response = exchange(request(path.toString()).GET());
		if (response.statusCode() == 404) {
			return 0;
		}
		if (response.statusCode() != 200) {
			throw new IllegalStateException(this.id + " answered " + response.statusCode() + " for " + path);
		}
		return json.readTree(response.body()).get("measurements").get(0).get("value").asDouble();
	}

	/**
	 * {@code POST /actuator/leader/default} with {@code {"nodeId": ...}}: force leadership to a
	 * node.
	 * @param nodeId the node that should lead
	 */
	void forceLeader(String nodeId) {
		send(request("/actuator/leader/" + FaultDatabase.ELECTION).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"nodeId\":\"" + nodeId + "\"}")), 200);
	}

	/** {@code DELETE /actuator/leader/default}: force a re-election. */
	void forceReelection() {
		send(request("/actuator/leader/" + FaultDatabase.ELECTION).DELETE(), 200);
	}

	/**
	 * Hold connections of the application's pool with slow queries (the sample's test hook).
	 * @param connections how many
	 * @param seconds for how long
	 */
	void holdApplicationConnections(int connections, int seconds) {
		send(request("/api/business-load?connections=" + connections + "&seconds=" + seconds)
			.POST(HttpRequest.BodyPublishers.noBody()), 200);
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(3));
	}

	private String send(HttpRequest.Builder request, int expectedStatus) {
		HttpResponse<String> response = exchange(request);
		if (response.statusCode() != expectedStatus) {
			throw new IllegalStateException(this.id + " answered " + response.statusCode() + ": " + response.body());
		}
		return response.body();
	}

	private HttpResponse<String> exchange(HttpRequest.Builder request) {
		try {
			return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(this.id + " did not answer: " + ex, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Stop the process whatever its state (resumed first if paused) and close its proxy. */
	@Override
	public void close() {
		unclosed.remove(this);
		if (this.process.isAlive()) {
			if (this.paused) {
				try {
					resume();
				}
				catch (RuntimeException ex) {
					// Killed below anyway.
				}
			}
			this.process.destroyForcibly();
			try {
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.proxy.close();
	}

	@Override
	public String toString() {
		return this.id + " (pid " + pid() + ", port " + this.port + ")";
	}

}
