package io.github.dbleader.benchmarks.harness;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.dbleader.test.NodeProcess;

/**
 * One process of a benchmark application in a slot of the cluster: a {@link NodeProcess}
 * with what the benchmarks add, the slot's database user, the system's arguments, marks
 * in its log and (for this starter) a forced hand-over through its actuator endpoint.
 */
final class Node implements AutoCloseable {

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

	private final String id;

	private final int slot;

	/**
	 * Connections of the application's pool in the load benchmark, as in the fault
	 * suite's M2.
	 */
	static final int LOAD_POOL_SIZE = 2;

	private static final HttpClient hookClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final NodeProcess process;

	/** Port of the application's load hook, or 0. */
	private final int loadHookPort;

	private long logMark;

	private Node(String id, int slot, NodeProcess process, int loadHookPort) {
		this.id = id;
		this.slot = slot;
		this.process = process;
		this.loadHookPort = loadHookPort;
	}

	/**
	 * Start a process of a system's application in a slot; it connects as the slot's
	 * user.
	 * @param system the system
	 * @param slot 1-based slot
	 * @param id node id, unique in the run
	 * @param settings the run's settings
	 * @param database the database
	 * @param logDirectory where its output goes
	 * @return the node, not necessarily started yet
	 * @throws IOException if the process cannot start
	 */
	static Node start(SystemUnderTest system, int slot, String id, RunSettings settings, Database database,
			Path logDirectory) throws IOException {
		return start(system, slot, id, settings, database, logDirectory, List.of());
	}

	/**
	 * Start a process of a system's application in a slot with further arguments.
	 * @param system the system
	 * @param slot 1-based slot
	 * @param id node id, unique in the run
	 * @param settings the run's settings
	 * @param database the database
	 * @param logDirectory where its output goes
	 * @param moreArguments arguments after the system's own, which they override
	 * @return the node, not necessarily started yet
	 * @throws IOException if the process cannot start
	 */
	static Node start(SystemUnderTest system, int slot, String id, RunSettings settings, Database database,
			Path logDirectory, List<String> moreArguments) throws IOException {
		return start(system, slot, id, settings, database, logDirectory, moreArguments, 0);
	}

	/**
	 * Start a process for the load benchmark: its application's pool as small as the
	 * fault suite's M2 makes it ({@value #LOAD_POOL_SIZE} connections, a wait of at most
	 * 1 s for one), and its load hook served ({@link #holdPool}).
	 * @param system the system
	 * @param slot 1-based slot
	 * @param id node id, unique in the run
	 * @param settings the run's settings
	 * @param database the database
	 * @param logDirectory where its output goes
	 * @return the node, not necessarily started yet
	 * @throws IOException if the process cannot start
	 */
	static Node startWithLoadHook(SystemUnderTest system, int slot, String id, RunSettings settings, Database database,
			Path logDirectory) throws IOException {
		int hookPort = NodeProcess.freePort();
		return start(system, slot, id, settings, database, logDirectory,
				List.of("--spring.datasource.hikari.maximum-pool-size=" + LOAD_POOL_SIZE,
						"--spring.datasource.hikari.connection-timeout=1000", "--bench.business-load-port=" + hookPort),
				hookPort);
	}

	private static Node start(SystemUnderTest system, int slot, String id, RunSettings settings, Database database,
			Path logDirectory, List<String> moreArguments, int loadHookPort) throws IOException {
		Path module = settings.benchmarks().resolve(system.module());
		String classpath = module.resolve("target/classes") + File.pathSeparator
				+ Files.readString(module.resolve("target/classpath.txt")).trim();
		int port = NodeProcess.freePort();
		NodeProcess process = NodeProcess.mainClass(classpath, system.mainClass())
			.arguments("--spring.datasource.url=" + database.applicationUrl(),
					"--spring.datasource.username=" + Database.user(slot), "--spring.datasource.password=",
					"--spring.main.banner-mode=off")
			.arguments(system.arguments(settings, id, port))
			.arguments(moreArguments)
			.httpPort(port)
			// Not every system runs a web server: its start is told by Spring Boot's log
			// line.
			.readyWhenLogged(" Started ")
			.start(id, logDirectory.resolve(id + ".log"));
		return new Node(id, slot, process, loadHookPort);
	}

	String id() {
		return this.id;
	}

	int slot() {
		return this.slot;
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Wait until the application reported that it started.
	 * @param timeout how long it may take
	 * @throws IllegalStateException if the process died or did not start in time
	 * @throws InterruptedException if interrupted while waiting
	 */
	void awaitStarted(Duration timeout) throws InterruptedException {
		this.process.awaitReady(timeout);
	}

	/** Remember the end of the log: {@link #loggedSinceMark} looks only after it. */
	void markLog() {
		this.logMark = this.process.log().mark();
	}

	/**
	 * Whether a line containing the text was written after the mark.
	 * @param text the text
	 * @return whether it appeared
	 */
	boolean loggedSinceMark(String text) {
		return this.process.log().containsSince(this.logMark, text);
	}

	/**
	 * @return the current end of the log, for {@link #logLinesSince(long)}
	 */
	long logPosition() {
		return this.process.log().mark();
	}

	/**
	 * The lines of the log after a position.
	 * @param position from {@link #logPosition()}
	 * @return the lines
	 */
	List<String> logLinesSince(long position) {
		return this.process.log().lines(position);
	}

	/**
	 * Count the lines of the whole log that contain the text.
	 * @param text the text
	 * @return the number of lines
	 */
	long countLogged(String text) {
		return this.process.log().count(text);
	}

	/** SIGKILL, and wait for the process to be gone. */
	void kill() {
		this.process.kill();
	}

	/** SIGTERM, a graceful shutdown; does not wait. */
	void terminate() {
		this.process.terminate();
	}

	/** Wait up to 30 s for the process to exit. */
	void awaitExit() {
		this.process.awaitExit(EXIT_TIMEOUT);
	}

	/** SIGSTOP: the whole process freezes, as in a long GC pause or a suspended VM. */
	void pause() {
		this.process.pause();
	}

	/** SIGCONT. */
	void resume() {
		this.process.resume();
	}

	/**
	 * {@code POST /actuator/leader/default} with {@code {"nodeId": ...}}: ask this
	 * starter to move leadership to a node.
	 * @param nodeId the node that should lead
	 */
	void forceLeader(String nodeId) {
		this.process.send(this.process.request("/actuator/leader/default")
			.timeout(Duration.ofSeconds(5))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"nodeId\":\"" + nodeId + "\"}")), 200);
	}

	/**
	 * {@code GET} a path of the node's HTTP server.
	 * @param path e.g. {@code /actuator/metrics/...}
	 * @return the body, or empty if the node answered 404
	 * @throws IllegalStateException if it did not answer or answered another status than
	 * 200
	 */
	Optional<String> get(String path) {
		HttpResponse<String> response = this.process.exchange(this.process.request(path).GET());
		if (response.statusCode() == 404) {
			return Optional.empty();
		}
		if (response.statusCode() != 200) {
			throw new IllegalStateException(this.id + " answered " + response.statusCode() + " to GET " + path);
		}
		return Optional.of(response.body());
	}

	/**
	 * Hold all connections of the application's pool with slow queries
	 * ({@code SELECT SLEEP(seconds)}), through its load hook; answers at once.
	 * @param seconds for how long
	 * @throws IllegalStateException if the node has no hook or refused
	 */
	void holdPool(int seconds) throws IOException, InterruptedException {
		if (this.loadHookPort == 0) {
			throw new IllegalStateException(this.id + " was started without a load hook");
		}
		HttpResponse<String> response = hookClient.send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.loadHookPort + "/business-load?connections="
					+ LOAD_POOL_SIZE + "&seconds=" + seconds))
			.timeout(Duration.ofSeconds(10))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IllegalStateException(
					this.id + " answered " + response.statusCode() + " to its load hook: " + response.body());
		}
	}

	/** Stop the process whatever its state (resumed first if paused). */
	@Override
	public void close() {
		this.process.close();
	}

	@Override
	public String toString() {
		return this.id + " (slot " + this.slot + ", pid " + this.process.pid() + ")";
	}

}
