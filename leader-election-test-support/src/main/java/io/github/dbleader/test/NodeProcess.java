package io.github.dbleader.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One node of a multi-process test: a Java process started from an executable jar or a
 * main class, its output in a {@link ProcessLog}, a readiness check (a log line, an HTTP
 * path that answers 2xx, or both), HTTP requests to it, and the signals a fault test
 * sends: {@link #pause() SIGSTOP}, {@link #resume() SIGCONT}, {@link #terminate()
 * SIGTERM} and {@link #kill() SIGKILL}.
 *
 * <pre class="code">
 * NodeProcess node = NodeProcess.jar(jar)
 * 	.arguments("--server.port=" + port, "--leader-election.node-id=a")
 * 	.httpPort(port)
 * 	.readyWhenLogged("Started SampleApplication")
 * 	.readyWhenHttpOk("/actuator/health")
 * 	.start("a", logDirectory.resolve("a.log"));
 * </pre>
 *
 * Processes run with a small heap and a quick start-up by default, as several of them
 * share a few cores. A process not closed when the JVM ends is killed by a shutdown hook.
 * Signals other than SIGKILL and SIGTERM are sent with the {@code kill} command, so they
 * need a POSIX system.
 */
public final class NodeProcess implements AutoCloseable {

	/**
	 * The lowest port {@link #freePort} hands out: above the well-known and most
	 * services' ports.
	 */
	private static final int LOWEST_FIXED_PORT = 20000;

	/** The ports {@link #freePort} handed out in this JVM. */
	private static final Set<Integer> handedOutPorts = ConcurrentHashMap.newKeySet();

	/**
	 * JVM options of every process unless {@link Builder#jvmOptions(String...)} replaces
	 * them.
	 */
	public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1");

	/** Timeout of each HTTP request unless the caller sets its own on the request. */
	public static final Duration HTTP_TIMEOUT = Duration.ofSeconds(3);

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	/**
	 * Processes not closed yet: killed by a shutdown hook if the JVM ends without closing
	 * them.
	 */
	private static final Set<NodeProcess> unclosed = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> unclosed.forEach(NodeProcess::close), "stop-node-processes"));
	}

	private final String name;

	private final Process process;

	private final ProcessLog log;

	private final int httpPort;

	private final @Nullable String readyLogLine;

	private final @Nullable String readyHttpPath;

	private volatile boolean paused;

	private NodeProcess(String name, Process process, ProcessLog log, Builder builder) {
		this.name = name;
		this.process = process;
		this.log = log;
		this.httpPort = builder.httpPort;
		this.readyLogLine = builder.readyLogLine;
		this.readyHttpPath = builder.readyHttpPath;
	}

	/**
	 * Prepare a process that runs an executable jar ({@code java -jar}).
	 * @param jar the jar
	 * @return a builder
	 */
	public static Builder jar(Path jar) {
		return new Builder(List.of("-jar", jar.toString()));
	}

	/**
	 * Prepare a process that runs a main class.
	 * @param classpath the class path, entries separated by
	 * {@link java.io.File#pathSeparator}
	 * @param mainClass the class with the {@code main} method
	 * @return a builder
	 */
	public static Builder mainClass(String classpath, String mainClass) {
		return new Builder(List.of("-cp", classpath, mainClass));
	}

	/**
	 * A loopback port that was free a moment ago, e.g. for a process's web server, below
	 * the kernel's ephemeral range: a port that range hands out for a listener's port 0
	 * is just as likely to become the local port of an outgoing connection (a pool's, a
	 * proxy's) before the process binds it, and its web server then fails with "Port ...
	 * was already in use" (a fault suite run of .ci/run). Ports already handed out in
	 * this JVM are not given again.
	 * @return the port
	 */
	public static int freePort() {
		int below = ephemeralPortsFrom();
		for (int attempt = 0; below - LOWEST_FIXED_PORT > 1000 && attempt < 200; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(LOWEST_FIXED_PORT, below);
			if (!handedOutPorts.add(port)) {
				continue;
			}
			try (ServerSocket socket = new ServerSocket()) {
				socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
				return port;
			}
			catch (IOException ex) {
				// Taken: try another.
			}
		}
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The first port of the kernel's ephemeral range (Linux's default where it cannot be
	 * read).
	 */
	private static int ephemeralPortsFrom() {
		try {
			String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
			return Integer.parseInt(range.split("\\s+")[0]);
		}
		catch (IOException | RuntimeException ex) {
			return 32768;
		}
	}

	/**
	 * @return the name given at start, for messages
	 */
	public String name() {
		return this.name;
	}

	/**
	 * @return the operating system's process id
	 */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * @return the process's output
	 */
	public ProcessLog log() {
		return this.log;
	}

	/**
	 * @return the HTTP port given at start, 0 if none
	 */
	public int httpPort() {
		return this.httpPort;
	}

	/**
	 * @return whether the process runs (a paused process runs)
	 */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * @return whether it was paused and not resumed since
	 */
	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * Whether the process is ready: it logged the readiness line and its readiness path
	 * answers 2xx, as far as those were given.
	 * @return {@code true} once ready
	 * @throws IllegalStateException if the process exited
	 */
	public boolean isReady() {
		if (!this.process.isAlive()) {
			throw new IllegalStateException(this.name + " exited with " + this.process.exitValue()
					+ " before it was ready; its log " + this.log + " ends with:\n" + this.log.tail(40));
		}
		if (this.readyLogLine != null && !this.log.contains(this.readyLogLine)) {
			return false;
		}
		if (this.readyHttpPath != null) {
			try {
				int status = http
					.send(request(this.readyHttpPath).GET().build(), HttpResponse.BodyHandlers.discarding())
					.statusCode();
				return status >= 200 && status < 300;
			}
			catch (IOException ex) {
				return false; // not listening yet
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		return true;
	}

	/**
	 * Wait until the process {@link #isReady() is ready}.
	 * @param timeout how long it may take
	 * @throws IllegalStateException if the process exited or was not ready in time
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void awaitReady(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!isReady()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(this + " was not ready within " + timeout.toSeconds()
						+ " s; its log ends with:\n" + this.log.tail(40));
			}
			Thread.sleep(100); // between polls of the log and the port
		}
	}

	/** SIGSTOP: the whole process freezes, as in a long GC pause or a suspended VM. */
	public void pause() {
		signal("STOP");
		this.paused = true;
	}

	/** SIGCONT: a paused process runs on. */
	public void resume() {
		signal("CONT");
		this.paused = false;
	}

	/** SIGKILL, and wait until the process is gone. */
	public void kill() {
		this.process.destroyForcibly();
		awaitExit(EXIT_TIMEOUT);
	}

	/**
	 * SIGTERM, a graceful shutdown; returns at once, see {@link #awaitExit(Duration)}.
	 */
	public void terminate() {
		this.process.destroy();
	}

	/**
	 * Wait for the process to exit.
	 * @param timeout how long it may take
	 * @return its exit value
	 * @throws IllegalStateException if it still runs after the timeout
	 */
	public int awaitExit(Duration timeout) {
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(this + " did not exit within " + timeout.toSeconds() + " s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		unclosed.remove(this);
		return this.process.exitValue();
	}

	/**
	 * A request to a path of the process's web server, with {@link #HTTP_TIMEOUT}.
	 * @param path e.g. {@code /actuator/health}
	 * @return the request builder; set its method
	 */
	public HttpRequest.Builder request(String path) {
		if (this.httpPort == 0) {
			throw new IllegalStateException(this.name + " was started without an HTTP port");
		}
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.httpPort + path)).timeout(HTTP_TIMEOUT);
	}

	/**
	 * Send a request and return the response, whatever its status.
	 * @param request from {@link #request(String)}
	 * @return the response
	 * @throws IllegalStateException if the process did not answer
	 */
	public HttpResponse<String> exchange(HttpRequest.Builder request) {
		try {
			return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(this.name + " did not answer: " + ex, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Send a request that must answer with a given status.
	 * @param request from {@link #request(String)}
	 * @param expectedStatus e.g. 200
	 * @return the response body
	 * @throws IllegalStateException if the process did not answer or answered another
	 * status
	 */
	public String send(HttpRequest.Builder request, int expectedStatus) {
		HttpResponse<String> response = exchange(request);
		if (response.statusCode() != expectedStatus) {
			throw new IllegalStateException(this.name + " answered " + response.statusCode() + " to "
					+ response.request().method() + " " + response.uri().getPath() + ": " + response.body());
		}
		return response.body();
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

	/** Stop the process whatever its state: resumed first if paused, then killed. */
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
	}

	@Override
	public String toString() {
		return this.name + " (pid " + pid() + ((this.httpPort != 0) ? ", port " + this.httpPort : "") + ")";
	}

	/** How to start a {@link NodeProcess}. */
	public static final class Builder {

		private final List<String> program;

		private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;

		private final List<String> systemProperties = new ArrayList<>();

		private final List<String> arguments = new ArrayList<>();

		private int httpPort;

		private @Nullable String readyLogLine;

		private @Nullable String readyHttpPath;

		private Builder(List<String> program) {
			this.program = program;
		}

		/**
		 * Replace the {@link #DEFAULT_JVM_OPTIONS}.
		 * @param options the options
		 * @return this builder
		 */
		public Builder jvmOptions(String... options) {
			this.jvmOptions = List.of(options);
			return this;
		}

		/**
		 * Add a system property ({@code -Dname=value}).
		 * @param name its name
		 * @param value its value
		 * @return this builder
		 */
		public Builder systemProperty(String name, Object value) {
			this.systemProperties.add("-D" + name + "=" + value);
			return this;
		}

		/**
		 * Add program arguments, e.g. Spring Boot properties as {@code --name=value}.
		 * @param arguments the arguments
		 * @return this builder
		 */
		public Builder arguments(String... arguments) {
			return arguments(List.of(arguments));
		}

		/**
		 * Add program arguments, e.g. Spring Boot properties as {@code --name=value}.
		 * @param arguments the arguments
		 * @return this builder
		 */
		public Builder arguments(List<String> arguments) {
			this.arguments.addAll(arguments);
			return this;
		}

		/**
		 * The port the process's web server listens on (the caller passes it to the
		 * process in its arguments), for {@link NodeProcess#request(String)}.
		 * @param port the port
		 * @return this builder
		 */
		public Builder httpPort(int port) {
			this.httpPort = port;
			return this;
		}

		/**
		 * Ready only once a line of the log contains the text.
		 * @param text e.g. {@code "Started SampleApplication"}
		 * @return this builder
		 */
		public Builder readyWhenLogged(String text) {
			this.readyLogLine = text;
			return this;
		}

		/**
		 * Ready only once a {@code GET} of the path answers 2xx; needs the
		 * {@link #httpPort(int)}.
		 * @param path e.g. {@code "/actuator/health"}
		 * @return this builder
		 */
		public Builder readyWhenHttpOk(String path) {
			this.readyHttpPath = path;
			return this;
		}

		/**
		 * Start the process, its standard output and error going to the log file.
		 * @param name for messages, e.g. the node's id
		 * @param logFile the log file, replaced if it exists; its directory is created
		 * @return the process, not necessarily ready yet
		 * @throws IOException if the process cannot start
		 */
		public NodeProcess start(String name, Path logFile) throws IOException {
			if (this.readyHttpPath != null && this.httpPort == 0) {
				throw new IllegalStateException("Readiness over HTTP needs the process's HTTP port");
			}
			List<String> command = new ArrayList<>();
			command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
			command.addAll(this.jvmOptions);
			command.addAll(this.systemProperties);
			command.addAll(this.program);
			command.addAll(this.arguments);
			Path directory = logFile.toAbsolutePath().getParent();
			if (directory != null) {
				Files.createDirectories(directory);
			}
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(logFile.toFile())
				.start();
			NodeProcess node = new NodeProcess(name, process, new ProcessLog(logFile), this);
			unclosed.add(node);
			return node;
		}

	}

}
