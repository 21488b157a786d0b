package io.github.dbleader.benchmarks.harness;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The migration bridge's check of issue #39 ({@code --bridge}): one node of ShedLock's
 * own {@code JdbcTemplateLockProvider} ({@code app-shedlock}) beside one of this
 * starter's provider ({@code app-shedlock-provider}) on the same database, both running
 * the same {@code @SchedulerLock} job (lock {@code bench-job}, the same cron, atMostFor
 * and atLeastFor) for a window; once with
 * {@code leader-election.shedlock.bridge.table-name} naming ShedLock's table, and once
 * without it as the control. Each node records its runs in its system's job runs table,
 * on the database clock.
 */
final class BridgeBenchmark {

	/** ShedLock's table, the one {@code app-shedlock}'s provider creates and locks in. */
	static final String SHEDLOCK_TABLE = SystemUnderTest.SHEDLOCK.lockTables().get(0);

	/**
	 * Logged by {@code app-shedlock-provider} for a run whose fenced record was refused.
	 */
	private static final String NOT_RECORDED_MESSAGE = "Job run not recorded";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

	private final RunSettings settings;

	private final Database database;

	private final Path logDirectory;

	private final Duration window;

	/**
	 * @param settings the run's settings
	 * @param database the database
	 * @param logDirectory where the nodes' logs go
	 * @param window how long the two nodes run the job side by side
	 */
	BridgeBenchmark(RunSettings settings, Database database, Path logDirectory, Duration window) {
		this.settings = settings;
		this.database = database;
		this.logDirectory = logDirectory;
		this.window = window;
	}

	/**
	 * Run the pair for the window, from empty tables; both processes are stopped at the
	 * end whatever happens.
	 * @param bridged whether this starter's node runs with the bridge on ShedLock's table
	 * @return what the window showed
	 */
	Outcome run(boolean bridged) throws Exception {
		String name = bridged ? "bridge" : "control";
		this.database.reset(SystemUnderTest.SHEDLOCK);
		this.database.reset(SystemUnderTest.SHEDLOCK_PROVIDER);
		// ShedLock's node first: it creates ShedLock's table, which the bridge checks at
		// its start.
		try (Node shedLock = Node.start(SystemUnderTest.SHEDLOCK, 1, "shedlock-" + name, this.settings, this.database,
				this.logDirectory)) {
			shedLock.awaitStarted(START_TIMEOUT);
			try (Node provider = Node.start(SystemUnderTest.SHEDLOCK_PROVIDER, 2, "provider-" + name, this.settings,
					this.database, this.logDirectory, bridged ? bridgeArguments() : List.of())) {
				provider.awaitStarted(START_TIMEOUT);
				long logPosition = provider.logPosition();
				long from = this.database.now();
				log(name, "both nodes started; " + this.window.toSeconds() + " s of the job");
				Thread.sleep(this.window.toMillis());
				long to = this.database.now();
				// A run is recorded at its end: wait for those that started in the
				// window.
				Thread.sleep(this.settings.jobDuration().plus(this.settings.jobInterval()).toMillis());
				Outcome outcome = outcome(bridged, shedLock, provider, runs(from, to), (to - from) / 1000.0,
						provider.logLinesSince(logPosition)
							.stream()
							.filter((line) -> line.contains(NOT_RECORDED_MESSAGE))
							.count());
				log(name, outcome.toString());
				return outcome;
			}
		}
	}

	/**
	 * The bridge as the migration guide turns it on: ShedLock's table, and its time
	 * source, the database's, as {@code app-shedlock}'s provider is built
	 * {@code usingDbTime()}.
	 */
	private static List<String> bridgeArguments() {
		return List.of("--leader-election.shedlock.bridge.table-name=" + SHEDLOCK_TABLE,
				"--leader-election.shedlock.bridge.use-db-time=true");
	}

	/**
	 * @return both nodes' runs that started in the window, ordered by start
	 */
	private List<JobRun> runs(long from, long to) throws SQLException {
		List<JobRun> runs = new ArrayList<>(this.database.runs(SystemUnderTest.SHEDLOCK, from));
		runs.addAll(this.database.runs(SystemUnderTest.SHEDLOCK_PROVIDER, from));
		runs.removeIf((run) -> run.startedAt() < from || run.startedAt() >= to);
		runs.sort(Comparator.comparingLong(JobRun::startedAt));
		return runs;
	}

	private Outcome outcome(boolean bridged, Node shedLock, Node provider, List<JobRun> runs, double seconds,
			long notRecorded) {
		// A run's trigger is the cron period its start fell in: each run starts within
		// its period's first few hundred milliseconds (a scheduler's firing, the
		// provider's spread of up to 100 ms and its statements), and the nodes and the
		// database read the one clock of this machine.
		long period = this.settings.jobInterval().toMillis();
		Map<Long, Set<String>> nodesByTrigger = new HashMap<>();
		for (JobRun run : runs) {
			nodesByTrigger.computeIfAbsent(run.startedAt() / period, (trigger) -> new HashSet<>()).add(run.nodeId());
		}
		List<JobRun.Overlap> overlaps = JobRun.overlaps(runs);
		return new Outcome(bridged, seconds, count(runs, shedLock), count(runs, provider), nodesByTrigger.size(),
				nodesByTrigger.values().stream().filter((nodes) -> nodes.size() > 1).count(), overlaps.size(),
				overlaps.stream().mapToLong(JobRun.Overlap::millis).max().orElse(0), notRecorded);
	}

	private static long count(List<JobRun> runs, Node node) {
		return runs.stream().filter((run) -> run.nodeId().equals(node.id())).count();
	}

	private static void log(String name, String message) {
		System.out.println("[bridge: " + name + "] " + message);
	}

	/**
	 * What one window of the pair showed.
	 *
	 * @param bridged whether this starter's node ran with the bridge
	 * @param seconds length of the window, database clock
	 * @param shedLockRuns runs of ShedLock's node that started in the window
	 * @param providerRuns runs of this starter's node that started in the window
	 * @param triggers cron periods in which the job ran at all
	 * @param doubleRunTriggers cron periods in which it ran on both nodes
	 * @param overlaps pairs of runs of the two nodes whose [start, end] intervals
	 * intersect
	 * @param longestOverlapMillis the longest of them
	 * @param notRecorded runs of this starter's node whose fenced record was refused
	 * (from its log), which the counts above do not see
	 */
	record Outcome(boolean bridged, double seconds, long shedLockRuns, long providerRuns, long triggers,
			long doubleRunTriggers, int overlaps, long longestOverlapMillis, long notRecorded) {
	}

}
