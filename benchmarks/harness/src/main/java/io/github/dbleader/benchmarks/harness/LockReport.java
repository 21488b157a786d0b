package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import io.github.dbleader.benchmarks.harness.SystemResults.PauseOutcome;
import io.github.dbleader.benchmarks.harness.SystemResults.SteadyState;

/**
 * Writes the lock-mode section of {@code RESULTS.md} ({@code --locks}): the same job under
 * this starter's {@code @LeaderOnly}, its {@code @ClusterLock} and ShedLock's
 * {@code @SchedulerLock}, side by side. The section sits between markers, so that a lock
 * run replaces only it and the other runs keep it.
 */
final class LockReport {

	static final MarkedSection MARKS = new MarkedSection("<!-- locks:begin -->", "<!-- locks:end -->");

	private final StringBuilder out = new StringBuilder();

	private LockReport() {
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
		return new LockReport().render(results, settings, mode, command, startedAt, runtime, load);
	}

	private String render(List<SystemResults> results, RunSettings settings, String mode, String command,
			Instant startedAt, Duration runtime, String load) {
		line(MARKS.begin());
		line("## Leader or lock: one job, three ways");
		line();
		line("Measured on " + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").format(startedAt.atOffset(ZoneOffset.UTC))
				+ " with `" + command + "` (" + mode + "), which took " + runtime.toMinutes() + " min "
				+ runtime.toSecondsPart() + " s; load average (1, 5, 15 min) " + load + ". Three processes per system on"
				+ " the same MariaDB. The job records each run (node, term, start and end on the database clock) and works "
				+ settings.jobDuration().toMillis() + " ms. `@ClusterLock` and ShedLock's `@SchedulerLock` run it on the"
				+ " same cron (`" + settings.shedLockCron() + "`, every node's scheduler fires at the same second, the node"
				+ " that takes the lock runs it), with atMostFor = " + settings.lease().toMillis() + " ms and atLeastFor = "
				+ settings.lockAtLeastFor().toMillis() + " ms, the lock released after the run; `@LeaderOnly` runs it every "
				+ settings.jobInterval().toMillis() + " ms on the leader (lease " + settings.lease().toMillis()
				+ " ms, renew interval " + settings.renewInterval().toMillis() + " ms). This starter records the run in a"
				+ " fenced transaction (of the election, or of the lock); ShedLock has no fencing. The statements are"
				+ " MariaDB's counters of each node's database user (`USER_STATISTICS`), all of a node's statements: for"
				+ " this starter the election's heartbeat too, which a node runs in both modes (the `default` election).");
		line();
		StringBuilder header = new StringBuilder("| |");
		StringBuilder rule = new StringBuilder("|---|");
		for (SystemResults result : results) {
			header.append(' ').append(result.system().label()).append(" |");
			rule.append("---|");
		}
		line(header.toString());
		line(rule.toString());
		row(results, "runs in the steady window", (r) -> r.steadyState().runs() + " in "
				+ format("%.0f", r.steadyState().seconds()) + " s");
		row(results, "runs per node (the least node's share)", (r) -> runsPerNode(r.steadyState()));
		row(results, "statements per run, all nodes", (r) -> format("%.1f", r.steadyState().perRun()));
		SystemResults leaderMode = results.stream()
			.filter((r) -> r.system() == SystemUnderTest.OURS)
			.findFirst()
			.orElse(null);
		if (leaderMode != null) {
			double heartbeat = 3 * leaderMode.steadyState().otherPerSecond()
					+ 1000.0 / settings.renewInterval().toMillis();
			row(results, "statements per run less this starter's heartbeat (" + format("%.1f", heartbeat)
					+ " per second for the three nodes: the @LeaderOnly followers' rate, and the leader's renewal)",
					(r) -> perRunWithout(r, (r.system() == SystemUnderTest.SHEDLOCK) ? 0 : heartbeat));
		}
		row(results, "statements per node per second (mean of 3)",
				(r) -> format("%.1f", r.steadyState().totalStatements() / r.steadyState().seconds() / 3));
		row(results, "runs of two nodes at once (window and failover trials)",
				(r) -> r.overlapsDuringFailoverTrials().size() + " of " + r.runsDuringFailoverTrials() + " runs");
		for (FaultKind kind : List.of(FaultKind.KILL, FaultKind.TERM)) {
			row(results, kind.label() + " of the node that ran the latest run: first run elsewhere, median (min-max)",
					(r) -> recovery(r, kind));
		}
		row(results, "pause of " + settings.pause().toMillis() + " ms (2 x atMostFor) right after a run started: the"
				+ " frozen run committed after another node's run had started",
				(r) -> r.pauses().stream().filter(PauseOutcome::staleWrite).count() + " of " + r.pauses().size());
		row(results, "... frozen run committed at all", (r) -> r.pauses().stream()
			.filter(PauseOutcome::frozenRunCommitted)
			.count() + " of " + r.pauses().size());
		row(results, "... first run of another node after the freeze", (r) -> String.join(", ", r.pauses()
			.stream()
			.map((pause) -> (pause.takeoverMillis() >= 0) ? seconds(pause.takeoverMillis()) : "none")
			.toList()));
		line();
		line(MARKS.end());
		return this.out.toString();
	}

	private void row(List<SystemResults> results, String name, Function<SystemResults, String> cell) {
		StringBuilder row = new StringBuilder("| ").append(name).append(" |");
		for (SystemResults result : results) {
			row.append(' ').append(cell.apply(result)).append(" |");
		}
		line(row.toString());
	}

	private static String perRunWithout(SystemResults result, double perSecond) {
		SteadyState steady = result.steadyState();
		if (steady.runs() == 0) {
			return "–";
		}
		return format("%.1f", (steady.totalStatements() - perSecond * steady.seconds()) / steady.runs());
	}

	private static String runsPerNode(SteadyState steady) {
		List<Long> runs = steady.runsBySlot().values().stream().sorted((a, b) -> Long.compare(b, a)).toList();
		long least = runs.isEmpty() ? 0 : runs.get(runs.size() - 1);
		String share = (steady.runs() > 0) ? format("%.0f", 100.0 * least / steady.runs()) + " %" : "–";
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
		return format("%.2f", millis / 1000.0) + " s";
	}

	private static String format(String format, Object value) {
		return String.format(Locale.ROOT, format, value);
	}

	private void line(String text) {
		this.out.append(text).append('\n');
	}

	private void line() {
		line("");
	}

}
