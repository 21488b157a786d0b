package io.github.dbleader.benchmarks.harness;

import java.util.List;

import io.github.dbleader.benchmarks.harness.BridgeBenchmark.Outcome;

/**
 * Writes the bridge section of {@code RESULTS.md} ({@code --bridge}, issue #39):
 * ShedLock's own provider beside this starter's, with the migration bridge and without
 * it. The section sits between markers, so that a bridge run replaces only it and the
 * other runs keep it.
 */
final class BridgeReport {

	static final MarkedSection MARKS = new MarkedSection("<!-- bridge:begin -->", "<!-- bridge:end -->");

	private BridgeReport() {
	}

	/**
	 * Render the section.
	 * @param outcomes the windows, in the order they ran
	 * @param settings the run's settings
	 * @param measured when, with which command and at which commit, how long and on how
	 * busy a machine it ran ({@link MarkdownSection#measured})
	 * @return the Markdown section, markers included
	 */
	static String markdown(List<Outcome> outcomes, RunSettings settings, String measured) {
		MarkdownSection<Outcome> out = new MarkdownSection<>(outcomes);
		out.line(MARKS.begin());
		out.line("## The migration bridge: ShedLock's provider beside this starter's");
		out.line();
		out.line(measured + " Issue #39's bar: one instance on ShedLock's own `JdbcTemplateLockProvider` beside one"
				+ " on this starter's provider with `--leader-election.shedlock.bridge.table-name="
				+ BridgeBenchmark.SHEDLOCK_TABLE + "`, 0 overlapping runs of a per-second job. One process of"
				+ " `app-shedlock` (ShedLock's provider, `usingDbTime()`, its table `" + BridgeBenchmark.SHEDLOCK_TABLE
				+ "`) and one of"
				+ " `app-shedlock-provider` (ShedLock's annotations on this starter's provider, each run recorded in"
				+ " `SchedulerLockContext.runFenced`) on the same MariaDB database, both with the same `@SchedulerLock`"
				+ " job: lock `bench-job`, cron `" + settings.shedLockCron() + "`, atMostFor = "
				+ settings.lease().toMillis() + " ms, atLeastFor = " + settings.lockAtLeastFor().toMillis() + " ms, "
				+ settings.jobDuration().toMillis() + " ms of work, each run recorded with its start and end on the"
				+ " database clock. With the bridge, this starter's node also has"
				+ " `--leader-election.shedlock.bridge.use-db-time=true` (ShedLock's node uses the database's time);"
				+ " the control runs the same pair without either property. A run's trigger is the cron second its"
				+ " start fell in; two runs overlap when they are of different nodes and their [start, end] intervals"
				+ " intersect.");
		out.line();
		out.header((o) -> o.bridged() ? "with the bridge" : "without it (control)");
		out.row("window", (o) -> MarkdownSection.format("%.1f", o.seconds()) + " s");
		out.row("runs per node: ShedLock's provider / this starter's",
				(o) -> o.shedLockRuns() + " / " + o.providerRuns());
		out.row("triggers that ran", (o) -> String.valueOf(o.triggers()));
		out.row("triggers that ran on both nodes", (o) -> String.valueOf(o.doubleRunTriggers()));
		out.row("overlapping runs",
				(o) -> o.overlaps() + ((o.overlaps() > 0) ? " (longest " + o.longestOverlapMillis() + " ms)" : ""));
		out.row("runs of this starter's node whose fenced record was refused (not counted above)",
				(o) -> String.valueOf(o.notRecorded()));
		out.line();
		out.line(MARKS.end());
		return out.text();
	}

}
