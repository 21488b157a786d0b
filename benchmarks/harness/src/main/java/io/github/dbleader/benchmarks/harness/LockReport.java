package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.dbleader.benchmarks.harness.SystemResults.PauseOutcome;
import io.github.dbleader.benchmarks.harness.SystemResults.SteadyState;

/**
 * Writes the lock-mode section of {@code RESULTS.md} ({@code --locks}): the same job
 * under this starter's {@code @LeaderOnly}, its {@code @ClusterLock} and ShedLock's
 * {@code @SchedulerLock}, side by side. The section sits between markers, so that a lock
 * run replaces only it and the other runs keep it.
 */
final class LockReport {

	static final MarkedSection MARKS = new MarkedSection("<!-- locks:begin -->", "<!-- locks:end -->");

	private final MarkdownSection<SystemResults> out;

	private LockReport(List<SystemResults> results) {
		this.out = new MarkdownSection<>(results);
	}

	/**
	 * Render the section.
	 * @param results the systems' results, in the order they ran
	 * @param settings the run's settings
	 * @param mode {@code quick} or {@code full}, and what that means
	 * @param command how the run was started, and at which commit
	 * @param startedAt when it started
	 * @param runtime how long it took
	 * @param load the load averages around the run
	 * @return the Markdown section, markers included
	 */
	static String markdown(List<SystemResults> results, RunSettings settings, String mode, String command,
			Instant startedAt, Duration runtime, String load) {
		return new LockReport(results).render(results, settings, mode, command, startedAt, runtime, load);
	}

	private String render(List<SystemResults> results, RunSettings settings, String mode, String command,
			Instant startedAt, Duration runtime, String load) {
		this.out.line(MARKS.begin());
		this.out
			.line("## Leader or lock: one job, three ways, ShedLock's annotations on this starter, and the long run");
		this.out.line();
		this.out.line(MarkdownSection.measured(startedAt, "`" + command + "` (" + mode + ")", runtime, load)
				+ " Three processes per system on"
				+ " the same MariaDB. The job records each run (node, term, start and end on the database clock) and works "
				+ settings.jobDuration().toMillis()
				+ " ms. `@ClusterLock` and ShedLock's `@SchedulerLock` run it on the" + " same cron (`"
				+ settings.shedLockCron() + "`, every node's scheduler fires at the same second, the node"
				+ " that takes the lock runs it), with atMostFor = " + settings.lease().toMillis()
				+ " ms and atLeastFor = " + settings.lockAtLeastFor().toMillis()
				+ " ms, the lock released after the run; `@LeaderOnly` runs it every "
				+ settings.jobInterval().toMillis() + " ms on the leader (lease " + settings.lease().toMillis()
				+ " ms, renew interval " + settings.renewInterval().toMillis()
				+ " ms). This starter records the run in a"
				+ " fenced transaction (of the election, or of the lock); ShedLock has no fencing. The statements are"
				+ " MariaDB's counters of each node's database user (`USER_STATISTICS`), all of a node's statements: for"
				+ " this starter in leader mode the election's heartbeat too (the `default` election); in lock mode the"
				+ " nodes join no election (`leader-election.elections=` empty), so their heartbeat sends nothing.");
		this.out.line();
		if (results.stream().anyMatch((r) -> r.system() == SystemUnderTest.SHEDLOCK_PROVIDER)) {
			this.out.line("The column \"" + SystemUnderTest.SHEDLOCK_PROVIDER.label()
					+ "\" (issue #21) is ShedLock's column with"
					+ " ShedLock's annotations unchanged (`@EnableSchedulerLock`, `@SchedulerLock`, no `@ClusterLock`) and"
					+ " no `LockProvider` bean of the application's: `leader-election-shedlock` auto-configures its provider"
					+ " over this starter's cluster locks, and the job records each run (with its term) in"
					+ " `SchedulerLockContext.runFenced`, a transaction fenced by the run's lock (`app-shedlock-provider`).");
			this.out.line();
		}
		if (results.stream().anyMatch((r) -> r.system().longRun())) {
			this.out.line("The long-run columns (issue #21) run the same cron job, but each run works "
					+ SystemUnderTest.OURS_LONG.jobDuration(settings).toMillis() + " ms, three times atMostFor ("
					+ settings.lease().toMillis()
					+ " ms), so its lock must be kept alive: this starter's `@ClusterLock`" + " with `maxFor = "
					+ settings.lockMaxFor().toMillis() + " ms` (the node's lock keeper extends every"
					+ " kept lock by a lease each renew interval, in one statement), the run recorded at the end of its work"
					+ " in a transaction fenced by the lock; ShedLock's `KeepAliveLockProvider` around the same JDBC provider"
					+ " (it extends the lock by lockAtMostFor every half lockAtMostFor), the run recorded without a fence."
					+ " ShedLock's public `KeepAliveLockProvider` constructor refuses a lockAtMostFor below 30 s; the"
					+ " benchmark reaches the package-private constructor ShedLock's own tests use (floor 1 s), so that both"
					+ " run with the same atMostFor. Their `kill -9` and SIGTERM trials hit the node in the middle of a run,"
					+ " between one and two atMostFor after its start (the lock already kept past atMostFor); this starter's"
					+ " bar (#21) is a first run elsewhere within lease + renew interval + 1 s = "
					+ seconds(settings.lease().plus(settings.renewInterval()).plusSeconds(1).toMillis()) + ".");
			this.out.line();
		}
		this.out.header((column) -> column.system().label());
		this.out.row("work per run", (r) -> seconds(r.system().jobDuration(settings).toMillis()));
		this.out.row("runs in the steady window", (r) -> r.steadyState().runs() + " in "
				+ MarkdownSection.format("%.0f", r.steadyState().seconds()) + " s");
		this.out.row("runs per node (the least node's share)", (r) -> runsPerNode(r.steadyState()));
		this.out.row("statements per run, all nodes", (r) -> MarkdownSection.format("%.1f", r.steadyState().perRun()));
		SystemResults leaderMode = results.stream()
			.filter((r) -> r.system() == SystemUnderTest.OURS)
			.findFirst()
			.orElse(null);
		if (leaderMode != null) {
			double heartbeat = 3 * leaderMode.steadyState().otherPerSecond()
					+ 1000.0 / settings.renewInterval().toMillis();
			this.out.row(
					"statements per run less the election's heartbeat (" + MarkdownSection.format("%.1f", heartbeat)
							+ " per second for the three nodes in leader mode: the @LeaderOnly followers' rate, and the"
							+ " leader's renewal; none in lock mode or for ShedLock)",
					(r) -> perRunWithout(r, (r.system() == SystemUnderTest.OURS) ? heartbeat : 0));
		}
		this.out.row("statements per node per second (mean of 3)", (r) -> MarkdownSection.format("%.1f",
				r.steadyState().totalStatements() / r.steadyState().seconds() / 3));
		this.out.row("runs of two nodes at once (window and failover trials)",
				(r) -> r.overlapsDuringFailoverTrials().size() + " of " + r.runsDuringFailoverTrials() + " runs");
		for (FaultKind kind : List.of(FaultKind.KILL, FaultKind.TERM)) {
			this.out.row(kind.label() + " of the node that ran the latest run: first run elsewhere, median (min-max)",
					(r) -> recovery(r, kind));
		}
		this.out.row(
				"pause of " + settings.pause().toMillis() + " ms (2 x atMostFor) right after a run started: the"
						+ " frozen run committed after another node's run had started",
				(r) -> r.pauses().stream().filter(PauseOutcome::staleWrite).count() + " of " + r.pauses().size());
		this.out.row("... frozen run committed at all",
				(r) -> r.pauses().stream().filter(PauseOutcome::frozenRunCommitted).count() + " of "
						+ r.pauses().size());
		this.out
			.row("... first run of another node after the freeze",
					(r) -> String.join(", ", r.pauses()
						.stream()
						.map((pause) -> (pause.takeoverMillis() >= 0) ? seconds(pause.takeoverMillis()) : "none")
						.toList()));
		this.out.line();
		this.out.line(MARKS.end());
		return this.out.text();
	}

	private static String perRunWithout(SystemResults result, double perSecond) {
		SteadyState steady = result.steadyState();
		if (steady.runs() == 0) {
			return "–";
		}
		return MarkdownSection.format("%.1f",
				(steady.totalStatements() - perSecond * steady.seconds()) / steady.runs());
	}

	private static String runsPerNode(SteadyState steady) {
		List<Long> runs = steady.runsBySlot().values().stream().sorted((a, b) -> Long.compare(b, a)).toList();
		long least = runs.isEmpty() ? 0 : runs.get(runs.size() - 1);
		String share = (steady.runs() > 0) ? MarkdownSection.format("%.0f", 100.0 * least / steady.runs()) + " %" : "–";
		return String.join(" / ", runs.stream().map(String::valueOf).toList()) + " (" + share + ")";
	}

	private static String recovery(SystemResults result, FaultKind kind) {
		int missed = result.missedFailovers().getOrDefault(kind, 0);
		String times = result.failoverTimes(kind)
			.map((found) -> seconds(found.median()) + " (" + seconds(found.min()) + "-" + seconds(found.max()) + ") of "
					+ found.sorted().size())
			.orElse("–");
		return times + ((missed > 0) ? ", " + missed + " without a run elsewhere" : "");
	}

	private static String seconds(long millis) {
		return MarkdownSection.format("%.2f", millis / 1000.0) + " s";
	}

}
