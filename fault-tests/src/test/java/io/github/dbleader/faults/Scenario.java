package io.github.dbleader.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One fault scenario on a {@link Cluster}: remembers where it began (database time and
 * each node's log position), collects the measurements, and checks what every scenario
 * must show: no overlapping fenced runs of different holders, no fenced write of a stale
 * term, and no stack trace in any node's log (no exception reaches application code).
 */
final class Scenario {

	private final String title;

	private final FaultDatabase database;

	private final Cluster cluster;

	private final long startedAt;

	private final Map<SampleNode, Long> logMarks = new LinkedHashMap<>();

	private final List<String> failovers = new ArrayList<>();

	private final List<String> details = new ArrayList<>();

	private List<JobRuns.Run> runs = List.of();

	private List<JobRuns.Overlap> overlaps = List.of();

	private List<JobRuns.Run> staleWrites = List.of();

	private int transitions;

	private int electionPoolTraces;

	private int applicationPoolTraces;

	/**
	 * A scenario on the processes of a cluster.
	 * @param title the title, as in the report
	 * @param cluster the processes
	 */
	Scenario(String title, Cluster cluster) {
		this(title, cluster, cluster.database());
	}

	/**
	 * A scenario without processes, whose runs are checked with {@link #verifyRuns}.
	 * @param title the title, as in the report
	 * @param cluster the processes, or {@code null}
	 * @param database the database
	 */
	Scenario(String title, Cluster cluster, FaultDatabase database) {
		this.title = title;
		this.cluster = cluster;
		this.database = database;
		if (cluster != null) {
			cluster.nodes().forEach((node) -> this.logMarks.put(node, node.log().mark()));
		}
		this.startedAt = database.now();
	}

	/**
	 * Run a scenario once the cluster is steady: its body, then the properties every
	 * scenario must keep (checked also when the body failed, so that a broken invariant
	 * is not hidden behind the first failure), and its entry in the {@link FaultReport}.
	 * @param title the title, as in the report
	 * @param cluster the processes
	 * @param minimumNodes how many processes must be up before it starts
	 * @param body what the scenario does to the leader it is given
	 * @throws Exception what the body or the checks threw
	 */
	static void run(String title, Cluster cluster, int minimumNodes, Body body) throws Exception {
		SampleNode leader = cluster.awaitSteady(minimumNodes);
		Scenario scenario = new Scenario(title, cluster);
		Throwable failure = null;
		try {
			body.run(scenario, leader);
			scenario.verifyCommonProperties();
		}
		catch (Throwable ex) {
			failure = ex;
			try {
				scenario.verifyCommonProperties();
			}
			catch (Throwable alsoFailed) {
				ex.addSuppressed(alsoFailed);
			}
			throw ex;
		}
		finally {
			FaultReport.add(scenario.entry(failure));
		}
	}

	/** What a scenario does, given the steady cluster's leader. */
	@FunctionalInterface
	interface Body {

		void run(Scenario scenario, SampleNode leader) throws Exception;

	}

	String title() {
		return this.title;
	}

	/**
	 * @return database time when the scenario began
	 */
	long startedAt() {
		return this.startedAt;
	}

	/**
	 * The leadership changes a node logged since the scenario began.
	 * @param node the node
	 * @return the changes
	 */
	List<NodeLog.Transition> transitions(SampleNode node) {
		return node.log().transitions(this.logMarks.getOrDefault(node, 0L));
	}

	/**
	 * Record a failover or recovery time.
	 * @param what what was measured
	 * @param millis how long it took
	 * @param boundMillis the bound it is checked against
	 */
	void failover(String what, long millis, long boundMillis) {
		this.failovers.add(what + " " + millis + " ms (bound " + boundMillis + ")");
		System.out.println("[" + this.title + "] " + what + ": " + millis + " ms (bound " + boundMillis + " ms)");
	}

	/**
	 * Record another measurement for the report.
	 * @param detail the text
	 */
	void detail(String detail) {
		this.details.add(detail);
		System.out.println("[" + this.title + "] " + detail);
	}

	/** Read the runs and the logs and check the properties every scenario must have. */
	void verifyCommonProperties() {
		int logged = this.logMarks.keySet().stream().mapToInt((node) -> transitions(node).size()).sum();
		logged += this.cluster.nodes()
			.stream()
			.filter((node) -> !this.logMarks.containsKey(node))
			.mapToInt((node) -> node.log().transitions(0).size())
			.sum();
		verifyRuns(FaultDatabase.JOB_RUNS_TABLE, this.cluster.monitor(), logged);
		Map<String, List<String>> traces = new LinkedHashMap<>();
		this.electionPoolTraces = 0;
		this.applicationPoolTraces = 0;
		this.cluster.nodes().forEach((node) -> {
			for (NodeLog.StackTrace trace : node.log().stackTraces(this.logMarks.getOrDefault(node, 0L))) {
				if (trace.isElectionPoolBrokenConnection()) {
					this.electionPoolTraces++;
				}
				else if (trace.brokenConnectionPool() != null) {
					this.applicationPoolTraces++;
				}
				else {
					traces.computeIfAbsent(node.id(), (id) -> new ArrayList<>())
						.add(trace.logLine() + "\n"
								+ String.join("\n", trace.lines().subList(0, Math.min(trace.lines().size(), 12))));
				}
			}
		});
		assertThat(traces)
			.as("I7 no exception reaches application code: stack traces in the logs (besides HikariCP's broken-connection warnings)")
			.isEmpty();
	}

	/**
	 * Read the fenced runs since the scenario began and check that no two holders overlap
	 * and no stale term wrote.
	 * @param table the runs table
	 * @param monitor the monitor of the election's lease
	 * @param transitions the number of transitions, for the report
	 */
	void verifyRuns(String table, LeaseMonitor monitor, int transitions) {
		this.transitions = transitions;
		this.runs = JobRuns.since(this.database, table, this.startedAt);
		this.overlaps = JobRuns.overlaps(this.runs);
		this.staleWrites = JobRuns.staleWrites(this.runs, monitor.terms());
		assertThat(this.overlaps)
			.as("I5 at most one fenced writer at a time: job runs of different holders overlap (%d ms in all)",
					overlapMillis())
			.isEmpty();
		assertThat(this.staleWrites)
			.as("I4/I5 no fenced write of a stale term commits after a newer term began (terms seen: %s)",
					monitor.terms())
			.isEmpty();
	}

	long overlapMillis() {
		return this.overlaps.stream().mapToLong(JobRuns.Overlap::millis).sum();
	}

	/**
	 * The report entry.
	 * @param failure why the scenario failed, {@code null} if it passed
	 * @return the entry
	 */
	FaultReport.Entry entry(Throwable failure) {
		String verdict = (failure != null) ? "FAIL: " + firstLine(failure.getMessage()) : "pass";
		String failover = this.failovers.isEmpty() ? "-" : String.join("; ", this.failovers);
		List<String> all = new ArrayList<>(this.details);
		if (this.electionPoolTraces > 0) {
			all.add(this.electionPoolTraces + " broken-connection warnings with a stack trace from HikariCP in the "
					+ "election's own pool (logged by the pool, not thrown to the application)");
		}
		if (this.applicationPoolTraces > 0) {
			all.add(this.applicationPoolTraces + " broken-connection warnings with a stack trace from HikariCP in the "
					+ "application's pool (the fenced transaction's connection; logged by the pool)");
		}
		all.add(this.runs.size() + " job runs by "
				+ this.runs.stream().map(JobRuns.Run::nodeId).distinct().sorted().collect(Collectors.joining(", ")));
		return new FaultReport.Entry(this.title, verdict, failover, overlapMillis(), this.staleWrites.size(),
				this.transitions, String.join("; ", all));
	}

	private static String firstLine(String message) {
		if (message == null) {
			return "(no message)";
		}
		String trimmed = message.strip();
		int newline = trimmed.indexOf('\n');
		return (newline < 0) ? trimmed : trimmed.substring(0, newline);
	}

}
