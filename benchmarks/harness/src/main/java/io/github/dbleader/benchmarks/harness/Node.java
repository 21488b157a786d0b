package io.github.dbleader.benchmarks.harness;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One process of a benchmark application, its output in a log file, and the means to
 * terminate, kill, pause and resume it, to watch its log and (for this starter) to force a
 * hand-over through its actuator endpoint.
 */
final class Node implements AutoCloseable {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	/** Processes not closed yet: killed by a shutdown hook if the harness ends early. */
	private static final Set<Node> unclosed = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> unclosed.forEach(Node::close), "stop-benchmark-nodes"));
	}

	private final String id;

	private final int slot;

	private final int port;

	private final Process process;

	private final Path logFile;

	private long logPosition;

	private final StringBuilder unmatchedLog = new StringBuilder();

	private boolean paused;

	private Node(String id, int slot, int port, Process process, Path logFile) {
		this.id = id;
		this.slot = slot;
		this.port = port;
		this.process = process;
		this.logFile = logFile;
	}

	/**
	 * Start a process of a system's application in a slot; it connects as the slot's user.
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
		Path module = settings.benchmarks().resolve(system.module());
		String classpath = module.resolve("target/classes") + java.io.File.pathSeparator
				+ Files.readString(module.resolve("target/classpath.txt")).trim();
		int port = freePort();
		List<String> command = new ArrayList<>();
		command.add(ProcessHandle.current().info().command().orElse("java"));
		// Small heap, quick start-up: three of these share two cores.
		command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath,
				system.mainClass()));
		command.add("--spring.datasource.url=" + database.applicationUrl());
		command.add("--spring.datasource.username=" + Database.user(slot));
		command.add("--spring.datasource.password=");
		command.add("--spring.main.banner-mode=off");
		command.addAll(system.arguments(settings, id, port));
		Files.createDirectories(logDirectory);
		Path logFile = logDirectory.resolve(id + ".log");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile.toFile()).start();
		Node node = new Node(id, slot, port, process, logFile);
		unclosed.add(node);
		return node;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
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
	 * Whether the application reported that it started.
	 * @return {@code true} once started
	 * @throws IllegalStateException if the process died
	 */
	boolean hasStarted() {
		if (!this.process.isAlive()) {
			throw new IllegalStateException("Node " + this.id + " exited with " + this.process.exitValue()
					+ " before it started; see " + this.logFile);
		}
		try {
			return Files.readString(this.logFile, StandardCharsets.UTF_8).contains(" Started ");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Remember the end of the log: {@link #loggedSinceMark} looks only after it. */
	void markLog() {
		this.unmatchedLog.setLength(0);
		try {
			this.logPosition = Files.size(this.logFile);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Whether a line containing the text was written after the mark; reads only what was
	 * written since the last call.
	 * @param text the text
	 * @return whether it appeared
	 */
	boolean loggedSinceMark(String text) {
		try (RandomAccessFile file = new RandomAccessFile(this.logFile.toFile(), "r")) {
			long length = file.length();
			if (length <= this.logPosition) {
				return false;
			}
			byte[] bytes = new byte[(int) (length - this.logPosition)];
			file.seek(this.logPosition);
			file.readFully(bytes);
			this.unmatchedLog.append(new String(bytes, StandardCharsets.UTF_8));
			this.logPosition = length;
			boolean found = this.unmatchedLog.indexOf(text) >= 0;
			// Keep only a possibly incomplete last line for the next call.
			int lastLine = this.unmatchedLog.lastIndexOf("\n");
			this.unmatchedLog.delete(0, lastLine + 1);
			return found;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Count the lines of the whole log that contain the text.
	 * @param text the text
	 * @return the number of lines
	 */
	long countLogged(String text) {
		try {
			return Files.readAllLines(this.logFile, StandardCharsets.UTF_8)
				.stream()
				.filter((line) -> line.contains(text))
				.count();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** SIGKILL, and wait for the process to be gone. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		awaitExit();
	}

	/** SIGTERM, a graceful shutdown; does not wait. */
	void terminate() {
		this.process.destroy();
	}

	/** Wait up to 30 s for the process to exit. */
	void awaitExit() throws InterruptedException {
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Node " + this.id + " did not exit within 30 s");
		}
		unclosed.remove(this);
	}

	/** SIGSTOP: the whole process freezes, as in a long GC pause or a suspended VM. */
	void pause() throws IOException, InterruptedException {
		signal("STOP");
		this.paused = true;
	}

	/** SIGCONT. */
	void resume() throws IOException, InterruptedException {
		signal("CONT");
		this.paused = false;
	}

	private void signal(String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).inheritIO().start();
		if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
		}
	}

	/**
	 * {@code POST /actuator/leader/default} with {@code {"nodeId": ...}}: ask this starter to
	 * move leadership to a node.
	 * @param nodeId the node that should lead
	 */
	void forceLeader(String nodeId) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/leader/default"))
			.timeout(Duration.ofSeconds(5))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"nodeId\":\"" + nodeId + "\"}"))
			.build();
		HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IllegalStateException(this.id + " answered " + response.statusCode() + ": " + response.body());
		}
	}

	/** Stop the process whatever its state (resumed first if paused). */
	@Override
	public void close() {
		unclosed.remove(this);
		if (this.process.isAlive()) {
			if (this.paused) {
				try {
					resume();
				}
				catch (IOException | InterruptedException | RuntimeException ex) {
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
	}

	@Override
	public String toString() {
		return this.id + " (slot " + this.slot + ", pid " + this.process.pid() + ")";
	}

}
