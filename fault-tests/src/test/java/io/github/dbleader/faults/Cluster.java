package io.github.dbleader.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.test.TcpProxy;

import static org.awaitility.Awaitility.await;

/**
 * Sample processes competing in one election on the test database, each behind its own
 * {@link TcpProxy}, plus a {@link LeaseMonitor}. Scenarios reuse the processes: before
 * each one, {@link #awaitSteady(int)} heals every fault, replaces processes that are gone
 * and waits for one leader that runs its job.
 */
final class Cluster implements AutoCloseable {

	/** Longest wait for a process to start on a busy two-core machine. */
	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private final FaultDatabase database;

	private final Path jar;

	private final Path logDirectory;

	private final LeaseMonitor monitor;

	private final List<SampleNode> nodes = new CopyOnWriteArrayList<>();

	/**
	 * Where the processes connect, in turn: the database, or each node of a database
	 * cluster.
	 */
	private final List<FaultDatabase> nodeDatabases;

	private final Map<SampleNode, FaultDatabase> databaseOfNode = new ConcurrentHashMap<>();

	private int started;

	/** Arguments every process of this cluster gets after the common ones. */
	private final List<String> arguments;

	Cluster(FaultDatabase database) {
		this(database, List.of(database), List.of());
	}

	/**
	 * A cluster whose processes get arguments of their own.
	 * @param database the database
	 * @param arguments further arguments of every process, after the common ones
	 */
	Cluster(FaultDatabase database, List<String> arguments) {
		this(database, List.of(database), arguments);
	}

	/**
	 * Processes spread over the nodes of a database cluster.
	 * @param database where the monitor and the checks read, one of the nodes
	 * @param nodeDatabases each node of the cluster: the processes connect to them in
	 * turn
	 * @return the cluster
	 */
	static Cluster spreadOver(FaultDatabase database, List<FaultDatabase> nodeDatabases) {
		return new Cluster(database, nodeDatabases, List.of());
	}

	private Cluster(FaultDatabase database, List<FaultDatabase> nodeDatabases, List<String> arguments) {
		this.arguments = List.copyOf(arguments);
		this.database = database;
		this.nodeDatabases = List.copyOf(nodeDatabases);
		this.jar = Path
			.of(System.getProperty("fault.sample-jar", "../sample-app/target/sample-app-0.1.0-SNAPSHOT.jar"));
		if (!Files.isRegularFile(this.jar)) {
			throw new IllegalStateException("The sample's executable jar " + this.jar.toAbsolutePath()
					+ " is missing: build it with ./mvnw -pl sample-app -am package -DskipTests");
		}
		// Here rather than at the first start, which a scenario may time.
		SampleLaunch.of(this.jar);
		this.logDirectory = ForkLock.workDirectory();
		requireSameClock(database);
		database.dropTables();
		this.monitor = new LeaseMonitor(database);
	}

	/**
	 * Some checks compare the time of a process's log line with a time of the database
	 * clock, which is sound only when both read the same clock: the database must run on
	 * this machine.
	 */
	private static void requireSameClock(FaultDatabase database) {
		long offset = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			long before = System.currentTimeMillis();
			long databaseTime = database.now();
			long after = System.currentTimeMillis();
			long reading = databaseTime - (before + after) / 2;
			offset = (Math.abs(reading) < Math.abs(offset)) ? reading : offset;
		}
		if (Math.abs(offset) > 20) {
			throw new IllegalStateException("The database clock is " + offset + " ms off this machine's clock: the "
					+ "fault tests compare the processes' log times with database times and need a database on this machine");
		}
	}

	FaultDatabase database() {
		return this.database;
	}

	LeaseMonitor monitor() {
		return this.monitor;
	}

	/**
	 * The database (node) a process connects to.
	 * @param node a process that this cluster started
	 * @return its database
	 */
	FaultDatabase databaseOf(SampleNode node) {
		return this.databaseOfNode.getOrDefault(node, this.database);
	}

	/**
	 * @return every process started so far, alive or not, in order of start
	 */
	List<SampleNode> nodes() {
		return List.copyOf(this.nodes);
	}

	/**
	 * @return the processes that run
	 */
	List<SampleNode> live() {
		return this.nodes.stream().filter(SampleNode::isAlive).toList();
	}

	/**
	 * The live processes other than one.
	 * @param node the one to leave out
	 * @return the others
	 */
	List<SampleNode> others(SampleNode node) {
		return live().stream().filter((other) -> other != node).toList();
	}

	/**
	 * Start a process that is not one of the cluster's (never replaced, not counted) and
	 * wait until it has started. The caller closes it.
	 * @param id node id, possibly one that a cluster process uses
	 * @param logName name of its log
	 * @return the process
	 */
	SampleNode startUnmanaged(String id, String logName) {
		SampleNode node;
		try {
			node = SampleNode.start(id, logName, this.jar, this.database, this.logDirectory, this.arguments);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		await("process " + node + " started").atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(node::hasStarted);
		return node;
	}

	/**
	 * Start processes in parallel and wait until each has started.
	 * @param count how many
	 */
	void start(int count) {
		start(count, List.of());
	}

	/**
	 * Start processes in parallel with arguments of their own, after the cluster's, and
	 * wait until each has started (its application is ready).
	 * @param count how many
	 * @param arguments their further arguments
	 * @return the processes
	 */
	List<SampleNode> start(int count, List<String> arguments) {
		List<String> all = new ArrayList<>(this.arguments);
		all.addAll(arguments);
		List<SampleNode> starting = new ArrayList<>();
		try {
			for (int i = 0; i < count; i++) {
				FaultDatabase nodeDatabase = this.nodeDatabases.get(this.started % this.nodeDatabases.size());
				String id = "fault-" + (char) ('a' + this.started++);
				SampleNode node = SampleNode.start(id, id, this.jar, nodeDatabase, this.logDirectory, all);
				this.databaseOfNode.put(node, nodeDatabase);
				this.nodes.add(node);
				starting.add(node);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		await("processes " + starting + " started").atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> starting.stream().allMatch(SampleNode::hasStarted));
		return starting;
	}

	/**
	 * Heal every fault, keep at least {@code minimumNodes} processes running, and wait
	 * until exactly one of them believes it leads, the lease names it and it runs its
	 * job.
	 * @param minimumNodes processes that must run
	 * @return the leader
	 */
	SampleNode awaitSteady(int minimumNodes) {
		for (SampleNode node : this.nodes) {
			node.proxy().heal();
			if (node.isAlive() && node.isPaused()) {
				node.resume();
			}
		}
		int missing = minimumNodes - live().size();
		if (missing > 0) {
			start(missing);
		}
		SampleNode[] leader = new SampleNode[1];
		await("one leader among " + live() + " that runs its job").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptions()
			.until(() -> {
				List<SampleNode> believers = believers();
				if (believers.size() != 1) {
					return false;
				}
				SampleNode candidate = believers.get(0);
				Optional<LeaseMonitor.Sighting> lease = this.monitor.latest();
				long now = this.database.now();
				boolean leaseNamesIt = lease.isPresent() && candidate.id().equals(lease.get().leaderId())
						&& lease.get().expiresAt() > now;
				boolean runsJob = JobRuns.first(this.database, now - 1000, (run) -> run.nodeId().equals(candidate.id()))
					.isPresent();
				leader[0] = candidate;
				return leaseNamesIt && runsJob;
			});
		return leader[0];
	}

	/**
	 * Ask every live process whether it believes it leads (its gauge, no database
	 * access).
	 * @return those that do
	 */
	List<SampleNode> believers() {
		return live().stream().filter(SampleNode::believesItLeads).toList();
	}

	/** Stop every process (resuming paused ones first), the proxies and the monitor. */
	@Override
	public void close() {
		RuntimeException failure = null;
		for (SampleNode node : this.nodes) {
			try {
				node.close();
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
		}
		this.monitor.close();
		this.database.closeClock();
		if (failure != null) {
			throw failure;
		}
	}

}
