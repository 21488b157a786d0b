package io.github.dbleader.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Predicate;

import io.github.dbleader.benchmarks.harness.Database.StatementCounters;
import io.github.dbleader.benchmarks.harness.SystemResults.FailoverTrial;
import io.github.dbleader.benchmarks.harness.SystemResults.PauseOutcome;
import io.github.dbleader.benchmarks.harness.SystemResults.SteadyState;

/**
 * Runs every measurement of one system on a cluster of its application's processes, one
 * per slot: the database cost in steady state, the failover trials, and the pause
 * scenario. Every time is the database clock's; job runs are read from the database.
 */
final class SystemBenchmark {

	private static final String STARTED_MESSAGE = "Job run started";

	private final SystemUnderTest system;

	private final RunSettings settings;

	private final Database database;

	private final Path logDirectory;

	private final Random random;

	private final Node[] slots;

	/**
	 * Whether the nodes serve the load hook and run with the load benchmark's small pool.
	 */
	private final boolean loadHook;

	private int started;

	SystemBenchmark(SystemUnderTest system, RunSettings settings, Database database, Path logDirectory) {
		this(system, settings, database, logDirectory, false);
	}

	/**
	 * @param system the system
	 * @param settings the run's settings
	 * @param database the database
	 * @param logDirectory where the nodes' logs go
	 * @param loadHook whether to start the nodes for the load benchmark
	 * ({@link Node#startWithLoadHook})
	 */
	SystemBenchmark(SystemUnderTest system, RunSettings settings, Database database, Path logDirectory,
			boolean loadHook) {
		this.loadHook = loadHook;
		this.system = system;
		this.settings = settings;
		this.database = database;
		this.logDirectory = logDirectory;
		this.random = new Random(settings.seed());
		this.slots = new Node[settings.nodes()];
	}

	/**
	 * Run every measurement; the processes are stopped at the end whatever happens.
	 * @return the results
	 */
	SystemResults run() throws Exception {
		try {
			startCluster();
			long trialsFrom = this.database.now();
			SteadyState steadyState = measureSteadyState();
			Map<FaultKind, List<FailoverTrial>> failovers = new EnumMap<>(FaultKind.class);
			Map<FaultKind, Integer> missed = new EnumMap<>(FaultKind.class);
			for (FaultKind kind : FaultKind.values()) {
				if (kind != FaultKind.FORCED || this.system.hasForcedHandover()) {
					List<FailoverTrial> times = new ArrayList<>();
					for (int trial = 1; trial <= this.settings.trials(); trial++) {
						failoverTrial(kind, trial).ifPresentOrElse(times::add,
								() -> missed.merge(kind, 1, Integer::sum));
					}
					failovers.put(kind, times);
				}
			}
			List<JobRun> trialRuns = this.database.runs(this.system, trialsFrom);
			List<PauseOutcome> pauses = new ArrayList<>();
			for (int trial = 1; trial <= this.settings.pauseTrials(); trial++) {
				pauses.add(pauseTrial(trial));
			}
			return new SystemResults(this.system, steadyState, failovers, missed, pauses, trialRuns.size(),
					JobRun.overlaps(trialRuns));
		}
		finally {
			stopCluster();
		}
	}

	/**
	 * The load benchmark ({@code --load}): a quiet baseline window, then the fault
	 * suite's M2 load ({@link DatabaseLoad}, and every node's application pool held by
	 * slow queries, renewed every 30 s), then a tail after it; the holder is polled from
	 * the database throughout, the nodes' logs and (this starter) heartbeat meters are
	 * read around it.
	 * @param baseline the quiet window before the load
	 * @param load how long the load lasts
	 * @param tail the window after the load
	 * @return what was seen
	 */
	LoadOutcome runUnderLoad(Duration baseline, Duration load, Duration tail) throws Exception {
		try {
			startCluster();
			long baselineFrom = this.database.now();
			sleep(baseline);
			long[] marks = new long[this.slots.length];
			for (int i = 0; i < this.slots.length; i++) {
				marks[i] = this.slots[i].logPosition();
			}
			long[] roundsBefore = heartbeatRounds();
			HolderWatch watch = new HolderWatch(this.database, this.system);
			watch.start();
			long from = this.database.now();
			long heavyQueries;
			log("load for " + load.toSeconds() + " s");
			try (DatabaseLoad running = DatabaseLoad.start(this.settings)) {
				for (long held = 0; held < load.toSeconds(); held += 30) {
					int seconds = (int) Math.min(30, load.toSeconds() - held);
					for (Node node : this.slots) {
						node.holdPool(seconds);
					}
					sleep(Duration.ofSeconds(seconds));
				}
				heavyQueries = running.heavyQueries();
			}
			long to = this.database.now();
			sleep(tail);
			long end = this.database.now();
			watch.stop();
			long[] roundsAfter = heartbeatRounds();
			List<JobRun> runs = this.database.runs(this.system, baselineFrom);
			List<JobRun> loaded = runs.stream().filter((run) -> run.finishedAt() >= from).toList();
			int nodeChanges = 0;
			for (int i = 1; i < loaded.size(); i++) {
				nodeChanges += loaded.get(i).nodeId().equals(loaded.get(i - 1).nodeId()) ? 0 : 1;
			}
			long grants = 0;
			long revocations = 0;
			long warnings = 0;
			// Changes of leadership as the nodes logged them: +1 granted, -1 revoked, by
			// time.
			TreeMap<Long, Integer> changes = new TreeMap<>();
			for (int i = 0; i < this.slots.length; i++) {
				for (String line : this.slots[i].logLinesSince(marks[i])) {
					int change = line.contains("leadership granted") ? 1 : line.contains("revoked from") ? -1 : 0;
					grants += (change > 0) ? 1 : 0;
					revocations += (change < 0) ? 1 : 0;
					if (change != 0) {
						changes.merge(Instant.parse(line.substring(0, line.indexOf(' '))).toEpochMilli(), change,
								Integer::sum);
					}
					warnings += (line.contains(" WARN ") || line.contains(" ERROR ")) ? 1 : 0;
				}
			}
			List<JobRun.Overlap> overlaps = JobRun.overlaps(runs);
			LoadOutcome outcome = new LoadOutcome(this.system, (from - baselineFrom) / 1000.0,
					runs.stream().filter((run) -> run.startedAt() < from).count(), (to - from) / 1000.0,
					loaded.stream().filter((run) -> run.startedAt() < to).count(), (end - to) / 1000.0,
					loaded.stream().filter((run) -> run.startedAt() >= to).count(), heavyQueries, watch.changes(),
					withoutLeaderMillis(changes, end), grants, revocations, nodeChanges, overlaps.size(),
					overlaps.stream().mapToLong(JobRun.Overlap::millis).max().orElse(0), warnings,
					(roundsBefore.length == 0) ? -1 : roundsAfter[0] - roundsBefore[0],
					(roundsBefore.length == 0) ? -1 : roundsAfter[1] - roundsBefore[1]);
			log(outcome.toString());
			return outcome;
		}
		finally {
			stopCluster();
		}
	}

	/**
	 * The time without a leader by the nodes' own account: one node led when the load
	 * began (the job ran steadily), and each logged grant adds one, each revocation takes
	 * one.
	 * @param changes +1 and -1 by the time they were logged
	 * @param end the end of the window
	 * @return milliseconds in which no node believed it led
	 */
	private static long withoutLeaderMillis(TreeMap<Long, Integer> changes, long end) {
		int leaders = 1;
		long without = 0;
		long since = 0;
		for (Map.Entry<Long, Integer> change : changes.entrySet()) {
			if (leaders <= 0) {
				without += change.getKey() - since;
			}
			leaders += change.getValue();
			since = change.getKey();
		}
		return without + ((leaders <= 0) ? Math.max(0, end - since) : 0);
	}

	/**
	 * The failed and the slow heartbeat rounds of all nodes so far (this starter only).
	 * @return {failed, slow}, or an empty array for the other systems
	 */
	private long[] heartbeatRounds() {
		if (this.system != SystemUnderTest.OURS) {
			return new long[0];
		}
		long[] rounds = new long[2];
		String metric = "/actuator/metrics/leader.election.heartbeat";
		for (Node node : this.slots) {
			rounds[0] += ScaleBenchmark.values(node.get(metric + "?tag=outcome:failure"))
				.getOrDefault("COUNT", 0.0)
				.longValue();
			rounds[1] += ScaleBenchmark.values(node.get(metric + ".slow")).getOrDefault("COUNT", 0.0).longValue();
		}
		return rounds;
	}

	/**
	 * Reset the system's tables, start a node in every slot and wait until the job runs
	 * steadily.
	 */
	private void startCluster() throws Exception {
		this.database.reset(this.system);
		for (int slot = 1; slot <= this.slots.length; slot++) {
			startNode(slot);
		}
		awaitAllStarted();
		awaitSteadyRuns();
		sleep(this.settings.renewInterval().multipliedBy(4));
	}

	private void stopCluster() {
		for (Node node : this.slots) {
			if (node != null) {
				node.close();
			}
		}
	}

	private SteadyState measureSteadyState() throws SQLException, InterruptedException {
		log("steady state for " + this.settings.steadyState().toSeconds() + " s");
		Map<String, StatementCounters> before = this.database.statementCounters();
		long from = this.database.now();
		sleep(this.settings.steadyState());
		Map<String, StatementCounters> after = this.database.statementCounters();
		long to = this.database.now();
		if (this.system.longRun()) {
			// A run is recorded at its end: wait for those that started in the window.
			sleep(jobDuration().plus(this.settings.jobInterval()));
		}
		List<JobRun> runs = this.database.runs(this.system, from)
			.stream()
			.filter((run) -> run.startedAt() >= from && run.startedAt() < to)
			.toList();
		Map<String, Long> runsByNode = new HashMap<>();
		runs.forEach((run) -> runsByNode.merge(run.nodeId(), 1L, Long::sum));
		Map<Integer, StatementCounters> statements = new HashMap<>();
		Map<Integer, Long> runsBySlot = new HashMap<>();
		int runnerSlot = 1;
		long mostRuns = -1;
		for (int slot = 1; slot <= this.slots.length; slot++) {
			String user = Database.user(slot);
			statements.put(slot, after.getOrDefault(user, StatementCounters.NONE)
				.minus(before.getOrDefault(user, StatementCounters.NONE)));
			long nodeRuns = runsByNode.getOrDefault(this.slots[slot - 1].id(), 0L);
			runsBySlot.put(slot, nodeRuns);
			if (nodeRuns > mostRuns) {
				mostRuns = nodeRuns;
				runnerSlot = slot;
			}
		}
		return new SteadyState((to - from) / 1000.0, runs.size(), runnerSlot, runsBySlot, statements);
	}

	/**
	 * One failover trial: after a random delay of up to one job period, take leadership
	 * from the node that ran the latest job run, and measure the time from the fault to
	 * the start of the first run of another node. Whether the node was in the middle of a
	 * run is told by its log (the runs it started) and the table (the runs it committed).
	 */
	private Optional<FailoverTrial> failoverTrial(FaultKind kind, int trial) throws Exception {
		Node victim;
		if (this.system.longRun()) {
			// In the middle of a run whose lock outlived atMostFor: between one and two
			// leases after its start.
			awaitSteadyRuns();
			victim = awaitNextRunStart();
			sleep(this.settings.lease()
				.plus(Duration.ofMillis(this.random.nextInt((int) this.settings.lease().toMillis()))));
		}
		else {
			victim = awaitSteadyRuns();
			sleep(Duration.ofMillis(this.random.nextInt((int) this.settings.jobInterval().toMillis())));
		}
		Node target = (kind == FaultKind.FORCED) ? anyOtherThan(victim) : null;
		long faultAt = this.database.now();
		long runsStarted = victim.countLogged(STARTED_MESSAGE);
		switch (kind) {
			case KILL -> victim.kill();
			case TERM -> victim.terminate();
			case FORCED -> victim.forceLeader(target.id());
		}
		Predicate<JobRun> successor = (target != null) ? (run) -> run.nodeId().equals(target.id())
				: (run) -> !run.nodeId().equals(victim.id());
		// A run is recorded at its end: a long run shows only a run length after its
		// start.
		Duration deadline = this.settings.lease()
			.multipliedBy(3)
			.plus(this.settings.jobInterval().multipliedBy(2))
			.plus(jobDuration());
		Optional<JobRun> first = awaitRun(faultAt, successor, deadline);
		long runsCommitted = this.database.runs(this.system, 0)
			.stream()
			.filter((run) -> run.nodeId().equals(victim.id()) && run.finishedAt() <= faultAt)
			.count();
		boolean duringRun = runsStarted > runsCommitted;
		long periodMillis = this.system.runsStartAtTriggers() ? this.settings.jobInterval().toMillis() : 0;
		Optional<FailoverTrial> failover = first
			.map((run) -> new FailoverTrial(run.startedAt() - faultAt, duringRun, periodMillis));
		log(kind.label() + " trial " + trial + ": " + victim.id() + (duringRun ? " (during a run)" : "") + " -> "
				+ first.map((run) -> run.nodeId() + " after " + (run.startedAt() - faultAt) + " ms")
					.orElse("no run elsewhere within " + deadline.toMillis() + " ms"));
		if (kind != FaultKind.FORCED) {
			victim.awaitExit();
			startNode(victim.slot());
			awaitAllStarted();
		}
		return failover;
	}

	/**
	 * One pause trial: freeze the node that starts the next job run right after it
	 * started, for two leases, resume it, and look at the runs around the pause.
	 */
	private PauseOutcome pauseTrial(int trial) throws Exception {
		awaitSteadyRuns();
		Node victim = awaitNextRunStart();
		victim.pause();
		long pausedAt = this.database.now();
		sleep(Duration.ofMillis(Math.max(0, pausedAt + this.settings.pause().toMillis() - this.database.now())));
		victim.resume();
		sleep(this.settings.lease().plus(this.settings.jobInterval().multipliedBy(2)).plus(jobDuration()));
		long from = pausedAt - period().toMillis();
		List<JobRun> runs = this.database.runs(this.system, from);
		Optional<JobRun> takeover = runs.stream()
			.filter((run) -> !run.nodeId().equals(victim.id()) && run.startedAt() >= pausedAt)
			.findFirst();
		Optional<JobRun> frozenRun = runs.stream()
			.filter((run) -> run.nodeId().equals(victim.id()) && run.startedAt() <= pausedAt
					&& run.finishedAt() >= pausedAt)
			.findFirst();
		boolean stale = frozenRun.isPresent() && takeover.isPresent()
				&& frozenRun.get().finishedAt() > takeover.get().startedAt();
		List<JobRun.Overlap> overlaps = JobRun.overlaps(runs);
		PauseOutcome outcome = new PauseOutcome(victim.id(),
				takeover.map((run) -> run.startedAt() - pausedAt).orElse(-1L), frozenRun.isPresent(), stale,
				overlaps.size(), overlaps.stream().mapToLong(JobRun.Overlap::millis).max().orElse(0));
		log("pause trial " + trial + ": " + outcome);
		return outcome;
	}

	/**
	 * Watch every node's log, polling every millisecond, for the start of a job run.
	 * @return the node that started one
	 */
	private Node awaitNextRunStart() throws InterruptedException {
		for (Node node : this.slots) {
			node.markLog();
		}
		long deadline = System.nanoTime() + period().multipliedBy(3).toNanos();
		while (System.nanoTime() < deadline) {
			for (Node node : this.slots) {
				if (node.loggedSinceMark(STARTED_MESSAGE)) {
					return node;
				}
			}
			Thread.sleep(1);
		}
		throw new IllegalStateException(this.system.label() + ": no node started a job run within "
				+ period().multipliedBy(3).toMillis() + " ms");
	}

	private Node anyOtherThan(Node node) {
		for (Node candidate : this.slots) {
			if (candidate != node && candidate.isAlive()) {
				return candidate;
			}
		}
		throw new IllegalStateException("No other live node than " + node.id());
	}

	/**
	 * Wait until the job runs steadily: its latest run started within two job periods
	 * (and run lengths), on a node of the cluster.
	 * @return the node that ran it
	 */
	private Node awaitSteadyRuns() throws SQLException, InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (System.nanoTime() < deadline) {
			long now = this.database.now();
			List<JobRun> runs = this.database.runs(this.system, now - 5000 - period().toMillis());
			if (!runs.isEmpty()) {
				JobRun latest = runs.get(runs.size() - 1);
				if (latest.startedAt() >= now - 2 * period().toMillis()) {
					for (Node node : this.slots) {
						if (node.id().equals(latest.nodeId()) && node.isAlive()) {
							return node;
						}
					}
				}
			}
			Thread.sleep(50);
		}
		throw new IllegalStateException(this.system.label() + ": the job did not run steadily within 60 s");
	}

	/**
	 * @return how long a run works in this system
	 */
	private Duration jobDuration() {
		return this.system.jobDuration(this.settings);
	}

	/**
	 * @return the job's period and a run's work: the longest time between two run starts
	 */
	private Duration period() {
		return this.settings.jobInterval().plus(jobDuration());
	}

	private Optional<JobRun> awaitRun(long fromMillis, Predicate<JobRun> which, Duration timeout)
			throws SQLException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			Optional<JobRun> first = this.database.runs(this.system, fromMillis)
				.stream()
				.filter((run) -> run.startedAt() >= fromMillis)
				.filter(which)
				.findFirst();
			if (first.isPresent()) {
				return first;
			}
			Thread.sleep(20);
		}
		return Optional.empty();
	}

	private void startNode(int slot) throws IOException {
		this.started++;
		String id = this.system.name().toLowerCase() + "-" + this.started;
		this.slots[slot - 1] = this.loadHook
				? Node.startWithLoadHook(this.system, slot, id, this.settings, this.database, this.logDirectory)
				: Node.start(this.system, slot, id, this.settings, this.database, this.logDirectory);
	}

	private void awaitAllStarted() throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
		for (Node node : this.slots) {
			node.awaitStarted(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
		}
	}

	private void log(String message) {
		System.out.println("[" + this.system.label() + "] " + message);
	}

	private static void sleep(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

}
