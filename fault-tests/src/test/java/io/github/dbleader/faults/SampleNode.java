package io.github.dbleader.faults;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.dbleader.test.NodeProcess;
import io.github.dbleader.test.TcpProxy;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One process of the sample application (its executable jar, run by a
 * {@link NodeProcess}), with its own {@link TcpProxy} to the database, its log read as a
 * {@link NodeLog}, and its actuator endpoints.
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

	/**
	 * Elections every process joins besides {@link FaultDatabase#ELECTION} (whose leader
	 * runs the job), so that each heartbeat round renews, refreshes and reads several
	 * elections in one batch.
	 */
	static final List<String> OTHER_ELECTIONS = List.of("fault-other-1", "fault-other-2", "fault-other-3");

	/** Application pool size: small, so that the business-load hook can exhaust it. */
	static final int POOL_SIZE = 2;

	private static final JsonMapper json = JsonMapper.builder().build();

	private final String id;

	private final TcpProxy proxy;

	private final NodeProcess process;

	private final NodeLog log;

	private SampleNode(String id, TcpProxy proxy, NodeProcess process) {
		this.id = id;
		this.proxy = proxy;
		this.process = process;
		this.log = new NodeLog(process.log());
	}

	/**
	 * Start a process; it connects to the database through a new proxy.
	 * @param id node id
	 * @param jar the sample's executable jar
	 * @param database the database
	 * @param logDirectory where the process's output goes ({@code <id>.log})
	 * @return the node, not yet necessarily started
	 * @throws IOException if the process cannot start
	 */
	static SampleNode start(String id, Path jar, FaultDatabase database, Path logDirectory) throws IOException {
		return start(id, id, jar, database, logDirectory);
	}

	/**
	 * Start a process whose log has a name of its own; it connects to the database
	 * through a new proxy.
	 * @param id node id
	 * @param logName the log's name ({@code <logName>.log}), so that two processes with
	 * one node id keep separate logs
	 * @param jar the sample's executable jar
	 * @param database the database
	 * @param logDirectory where the process's output goes
	 * @return the node, not yet necessarily started
	 * @throws IOException if the process cannot start
	 */
	static SampleNode start(String id, String logName, Path jar, FaultDatabase database, Path logDirectory)
			throws IOException {
		return start(id, logName, jar, database, logDirectory, List.of());
	}

	/**
	 * Start a process with arguments of its own after the common ones; it connects to the
	 * database through a new proxy.
	 * @param id node id
	 * @param logName the log's name ({@code <logName>.log})
	 * @param jar the sample's executable jar
	 * @param database the database
	 * @param logDirectory where the process's output goes
	 * @param arguments further arguments, e.g. {@code --sample.lock-job-cron=...}
	 * @return the node, not yet necessarily started
	 * @throws IOException if the process cannot start
	 */
	static SampleNode start(String id, String logName, Path jar, FaultDatabase database, Path logDirectory,
			List<String> arguments) throws IOException {
		TcpProxy proxy = TcpProxy.start(id, database.address());
		int port = NodeProcess.freePort();
		NodeProcess process;
		try {
			process = SampleLaunch.of(jar)
				.process()
				.arguments("--server.port=" + port, "--leader-election.node-id=" + id,
						"--spring.datasource.url=" + database.urlThrough(proxy.port()),
						"--spring.datasource.username=" + database.username(),
						"--spring.datasource.password=" + database.password(),
						"--spring.datasource.hikari.maximum-pool-size=" + POOL_SIZE,
						// Tighter than the sample's 3 s: the scenarios bound health's
						// answer time by the pool wait
						// (FaultScenariosIntegrationTests.HEALTH_BOUND).
						"--spring.datasource.hikari.connection-timeout=1000",
						"--leader-election.lease-duration=" + LEASE.toMillis() + "ms",
						"--leader-election.renew-interval=" + RENEW.toMillis() + "ms",
						"--leader-election.jdbc.table-name=" + FaultDatabase.LEASE_TABLE,
						"--leader-election.elections=" + FaultDatabase.ELECTION + ","
								+ String.join(",", OTHER_ELECTIONS),
						"--leader-election.jdbc.candidate-table-name=" + FaultDatabase.CANDIDATE_TABLE,
						"--sample.job-runs-table=" + FaultDatabase.JOB_RUNS_TABLE,
						"--sample.job-interval=" + JOB_INTERVAL.toMillis() + "ms", "--sample.job-duration=20ms",
						"--sample.business-load-endpoint=true", "--spring.main.banner-mode=off",
						"--logging.pattern.dateformat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
						"--sample.lock-job-runs-table=" + FaultDatabase.LOCK_JOB_RUNS_TABLE,
						"--sample.partition-job-runs-table=" + FaultDatabase.PARTITION_JOB_RUNS_TABLE)
				// The cluster-lock job stays off ("-") unless the arguments turn it on; a
				// property given twice on the command line would be both values joined.
				.arguments(arguments.stream().anyMatch((argument) -> argument.startsWith("--sample.lock-job-cron="))
						? List.of() : List.of("--sample.lock-job-cron=-"))
				// The sample's partition group stays off unless the arguments declare it,
				// so
				// that the election's scenarios run without its 12 elections and its job.
				.arguments(
						arguments.stream().anyMatch((argument) -> argument.startsWith("--leader-election.partitions."))
								? List.of() : List.of("--spring.profiles.active=no-partitions"))
				.arguments(arguments)
				.httpPort(port)
				// Not the health endpoint: it is DOWN on a process whose node id is in
				// use.
				.readyWhenLogged("Started SampleApplication")
				.readyWhenHttpOk("/actuator/leader/" + FaultDatabase.ELECTION)
				.start(id, logDirectory.resolve(logName + ".log"));
		}
		catch (IOException | RuntimeException ex) {
			proxy.close();
			throw ex;
		}
		return new SampleNode(id, proxy, process);
	}

	String id() {
		return this.id;
	}

	long pid() {
		return this.process.pid();
	}

	TcpProxy proxy() {
		return this.proxy;
	}

	NodeLog log() {
		return this.log;
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	boolean isPaused() {
		return this.process.isPaused();
	}

	/**
	 * @return whether the application is ready; fails if the process died
	 */
	boolean hasStarted() {
		return this.process.isReady();
	}

	/** SIGSTOP: the whole process freezes, as in a long GC or a suspended VM. */
	void pause() {
		this.process.pause();
	}

	/** SIGCONT. */
	void resume() {
		this.process.resume();
	}

	/** SIGKILL, and wait for the process to be gone. */
	void kill() {
		this.process.kill();
	}

	/** SIGTERM: a graceful shutdown. Waits for the process to exit. */
	void terminate() {
		this.process.terminate();
		this.process.awaitExit(Duration.ofSeconds(30));
	}

	/**
	 * {@code GET /actuator/leader/default}.
	 * @return the election as this node describes it
	 */
	JsonNode election() {
		return json.readTree(this.process.send(leaderEndpoint().GET(), 200));
	}

	/**
	 * {@code GET} a path and time the answer from here.
	 * @param path e.g. {@code /actuator/health}
	 * @param giveUp how long to wait for an answer
	 * @return the answer, with status 0 if none came in time
	 */
	EndpointWatch.Answer timedGet(String path, Duration giveUp) {
		long sentAt = System.currentTimeMillis();
		long start = System.nanoTime();
		try {
			HttpResponse<String> response = this.process.exchange(this.process.request(path).timeout(giveUp).GET());
			return new EndpointWatch.Answer(this.id, path, sentAt, elapsedMillis(start), response.statusCode(),
					response.body());
		}
		catch (IllegalStateException ex) {
			return new EndpointWatch.Answer(this.id, path, sentAt, elapsedMillis(start), 0,
					String.valueOf(ex.getMessage()));
		}
	}

	private static long elapsedMillis(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
	}

	/**
	 * Whether this node believes it leads: the {@code leader.election.leader} gauge,
	 * which reads the local deadline without touching the database.
	 * @return {@code true} if it leads
	 */
	boolean believesItLeads() {
		return believesItLeads(FaultDatabase.ELECTION);
	}

	/**
	 * Whether this node believes it leads an election (its gauge).
	 * @param election the election
	 * @return {@code true} if it leads
	 */
	boolean believesItLeads(String election) {
		return meter("leader.election.leader", "election:" + election) == 1.0;
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
		HttpResponse<String> response = this.process.exchange(this.process.request(path.toString()).GET());
		if (response.statusCode() == 404) {
			return 0;
		}
		if (response.statusCode() != 200) {
			throw new IllegalStateException(this.id + " answered " + response.statusCode() + " for " + path);
		}
		return json.readTree(response.body()).get("measurements").get(0).get("value").asDouble();
	}

	/**
	 * {@code POST /actuator/leader/default} with {@code {"nodeId": ...}}: force
	 * leadership to a node.
	 * @param nodeId the node that should lead
	 */
	void forceLeader(String nodeId) {
		forceLeader(FaultDatabase.ELECTION, nodeId);
	}

	/**
	 * {@code POST /actuator/leader/{election}} with {@code {"nodeId": ...}}.
	 * @param election the election
	 * @param nodeId the node that should lead it
	 */
	void forceLeader(String election, String nodeId) {
		this.process.send(this.process.request("/actuator/leader/" + election)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"nodeId\":\"" + nodeId + "\"}")), 200);
	}

	/** {@code DELETE /actuator/leader/default}: force a re-election. */
	void forceReelection() {
		this.process.send(leaderEndpoint().DELETE(), 200);
	}

	private HttpRequest.Builder leaderEndpoint() {
		return this.process.request("/actuator/leader/" + FaultDatabase.ELECTION);
	}

	/**
	 * Hold connections of the application's pool with slow queries (the sample's test
	 * hook).
	 * @param connections how many
	 * @param seconds for how long
	 */
	void holdApplicationConnections(int connections, int seconds) {
		String path = "/api/business-load?connections=" + connections + "&seconds=" + seconds;
		this.process.send(this.process.request(path).POST(HttpRequest.BodyPublishers.noBody()), 200);
	}

	/**
	 * Stop the process whatever its state (resumed first if paused) and close its proxy.
	 */
	@Override
	public void close() {
		try {
			this.process.close();
		}
		finally {
			this.proxy.close();
		}
	}

	@Override
	public String toString() {
		return this.process.toString();
	}

}
