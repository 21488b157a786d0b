package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Writes the load section of {@code RESULTS.md} ({@code --load}, issue #20): the
 * leader-mode systems under a minute of the fault suite's M2 load, side by side. The
 * section sits between markers, so that a load run replaces only it and the other runs
 * keep it.
 */
final class LoadReport {

	static final MarkedSection MARKS = new MarkedSection("<!-- load:begin -->", "<!-- load:end -->");

	private final MarkdownSection<LoadOutcome> out;

	private LoadReport(List<LoadOutcome> outcomes) {
		this.out = new MarkdownSection<>(outcomes);
	}

	/**
	 * Render the section.
	 * @param outcomes the systems' outcomes, in the order they ran
	 * @param settings the run's settings
	 * @param command how the run was started, and at which commit
	 * @param startedAt when it started
	 * @param runtime how long it took
	 * @param load the load averages around the run
	 * @return the Markdown section, markers included
	 */
	static String markdown(List<LoadOutcome> outcomes, RunSettings settings, String command, Instant startedAt,
			Duration runtime, String load) {
		return new LoadReport(outcomes).render(outcomes, settings, command, startedAt, runtime, load);
	}

	private String render(List<LoadOutcome> outcomes, RunSettings settings, String command, Instant startedAt,
			Duration runtime, String load) {
		this.out.line(MARKS.begin());
		this.out.line("## Under database load: leader changes");
		this.out.line();
		this.out.line(MarkdownSection.measured(startedAt, "`" + command + "`", runtime, load)
				+ " Three processes per system on the same MariaDB, each"
				+ " in leader mode with the settings of the main table (lease " + settings.lease().toMillis()
				+ " ms, renew interval " + settings.renewInterval().toMillis() + " ms, the job every "
				+ settings.jobInterval().toMillis() + " ms, " + settings.jobDuration().toMillis() + " ms of work), but"
				+ " each application's pool is as small as in the fault suite's M2 (" + Node.LOAD_POOL_SIZE
				+ " connections, a wait of at most 1 s for one). After a quiet window the database gets M2's load"
				+ " (issue #20): every node's application pool held by `SELECT SLEEP(30)` queries (through a hook of"
				+ " each application, renewed every 30 s), two long transactions that keep the rows of a 5,000-row"
				+ " table locked and rewrite them every 500 ms, and two sessions running"
				+ " `SELECT BENCHMARK(2000000, SHA2(RAND(), 256))` without pause; then a window after it. The holder is"
				+ " polled from the database every 200 ms (this starter's live lease of `default`, Spring Integration's"
				+ " `INT_LOCK` row: another node or another term counts as a change); the time without a leader comes"
				+ " from the nodes' own \"leadership granted\" and \"revoked from\" log lines (`app-integration` logs its"
				+ " initiator's events in those words), as a revoked Spring Integration leader leaves its `INT_LOCK` row"
				+ " behind. ShedLock has no standing holder, each run takes the lock anew, so its line is the runs' moves"
				+ " between nodes. This starter's election"
				+ " renews on connections of its own ([I8](../docs/explanation/invariants.md#i8)); ShedLock and Spring Integration take and renew"
				+ " their locks on the application's pool. The job itself needs the application's pool in every"
				+ " system, so it fails under the load everywhere.");
		this.out.line();
		this.out.header((column) -> column.system().label());
		this.out.row("job runs: before the load / under it / after it",
				(o) -> rate(o.baselineRuns(), o.baselineSeconds()) + " / " + rate(o.loadRuns(), o.loadSeconds()) + " / "
						+ rate(o.tailRuns(), o.tailSeconds()));
		this.out.row("changes of holder (polled), under the load and after it",
				(o) -> (o.holderChanges() < 0) ? "– (no standing holder)" : String.valueOf(o.holderChanges()));
		this.out.row("time in which no node believed it led (from the logged grants and revocations)",
				(o) -> (o.holderChanges() < 0) ? "–"
						: MarkdownSection.format("%.1f", o.withoutLeaderMillis() / 1000.0) + " s");
		this.out.row("leadership granted / revoked (log lines of all nodes)",
				(o) -> (o.system() == SystemUnderTest.SHEDLOCK) ? "–" : o.grants() + " / " + o.revocations());
		this.out.row("job runs on another node than the run before", (o) -> String.valueOf(o.runNodeChanges()));
		this.out.row("runs of two nodes at once (a run committed after another node's run had started)",
				(o) -> o.overlaps() + ((o.overlaps() > 0) ? " (longest " + o.longestOverlapMillis() + " ms)" : ""));
		this.out.row("WARN and ERROR log lines of all nodes (failed statements, most of them the job's pool waits)",
				(o) -> String.valueOf(o.warnings()));
		this.out.row("heartbeat rounds failed / slow (this starter's meters, all nodes)",
				(o) -> (o.failedRounds() < 0) ? "–" : o.failedRounds() + " / " + o.slowRounds());
		this.out.row("CPU-heavy queries completed under the load", (o) -> String.valueOf(o.heavyQueries()));
		this.out.line();
		this.out.line(MARKS.end());
		return this.out.text();
	}

	private static String rate(long runs, double seconds) {
		return runs + " in " + MarkdownSection.format("%.0f", seconds) + " s";
	}

}
