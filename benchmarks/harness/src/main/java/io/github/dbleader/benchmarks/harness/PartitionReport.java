package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

import io.github.dbleader.benchmarks.harness.Database.StatementCounters;
import io.github.dbleader.benchmarks.harness.PartitionBenchmark.Change;
import io.github.dbleader.benchmarks.harness.PartitionBenchmark.Point;

/**
 * Writes the partition section of {@code RESULTS.md}, between its markers, so that a
 * partition run replaces only it and the other runs keep it.
 */
final class PartitionReport {

	static final MarkedSection MARKS = new MarkedSection("<!-- partitions:begin -->", "<!-- partitions:end -->");

	private final StringBuilder out = new StringBuilder();

	private PartitionReport() {
	}

	/**
	 * Render the section.
	 * @param points the measured points, in order
	 * @param settings the run's settings
	 * @param command how the run was started
	 * @param startedAt when it started
	 * @param runtime how long it took
	 * @param settleTime the group's settle time
	 * @param warmUp warm-up before the quiet window
	 * @param window the quiet window
	 * @param load load averages at the start and the end
	 * @return the Markdown section, markers included
	 */
	static String markdown(List<Point> points, RunSettings settings, String command, Instant startedAt,
			Duration runtime, Duration settleTime, Duration warmUp, Duration window, String load) {
		return new PartitionReport().render(points, settings, command, startedAt, runtime, settleTime, warmUp, window,
				load);
	}

	private String render(List<Point> points, RunSettings settings, String command, Instant startedAt, Duration runtime,
			Duration settleTime, Duration warmUp, Duration window, String load) {
		long renew = settings.renewInterval().toMillis();
		line(MARKS.begin());
		line("## Partitions: balance, moves and cost");
		line();
		line(MarkdownSection.measured(startedAt, "`" + command + "`", runtime, load)
				+ " This starter's benchmark application with a partition"
				+ " group of P partitions (`leader-election.partitions.bench.count`), no job, lease "
				+ settings.lease().toMillis() + " ms, renew interval " + renew + " ms (R), settle time "
				+ settleTime.toMillis()
				+ " ms, at most 2,000 hand-overs under way per node (the default `max-hand-overs`: two batches),"
				+ " on the same MariaDB as above." + " Two processes start together; a third joins; after a warm-up of "
				+ warmUp.toSeconds() + " s a quiet window of " + window.toSeconds()
				+ " s; then `kill -9` of the node that owns the most.");
		line();
		line("| P | 2 nodes balanced after start | join: balanced after the join (after settling) | join: moved / minimum "
				+ "| statements per node per s (min-max of 3) | per node per R (max) | kill -9: balanced after "
				+ "| kill -9: moved / minimum |");
		line("|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (Point point : points) {
			String size = String.format(Locale.ROOT, "%,d", point.count());
			if (point.failure() != null) {
				line("| " + size + " | failed: " + point.failure().replace("|", "/") + " | | | | | | |");
				continue;
			}
			line("| " + size + " | " + seconds(point.started().toMillis()) + " | "
					+ joinBalance(point.join(), settleTime, renew) + " | " + point.join().moved() + " / "
					+ point.joinMinimum() + " | " + format(point.minStatementsPerSecond()) + " - "
					+ format(point.maxStatementsPerSecond()) + " | "
					+ format(point.maxStatementsPerSecond() * renew / 1000.0) + " | " + balance(point.crash(), renew)
					+ " | " + point.crash().moved() + " / " + point.crashMinimum() + " |");
		}
		line();
		line("- **Balanced**: every partition has a live owner among the nodes and each owns ⌊P/N⌋ or ⌈P/N⌉, polled"
				+ " from the lease table every 100 ms; the time is to the `acquired_at` of the last partition that"
				+ " moved (database clock). After a join it counts from the new node's `first_seen` in the nodes table;"
				+ " in brackets from the moment it had been a member for the settle time, before which it receives"
				+ " nothing (the third node joins a settle time after the two balanced, so that it is a late joiner,"
				+ " not one of a cluster starting together); after `kill -9` from the kill, so it includes the lease"
				+ " running out.");
		line("- **Moved**: changes of owner seen by the poll (a partition that moved twice counts twice), against"
				+ " the fewest a balanced result allows: ⌊P/3⌋ for a join of a third node, the killed node's"
				+ " partitions for a crash.");
		line("- **Statements** are the server's counters (`INFORMATION_SCHEMA.USER_STATISTICS`) of each node's own"
				+ " database user over the quiet window, everything the process sent; per R is that times the renew"
				+ " interval. Per window: " + statements(points) + ".");
		line();
		line(MARKS.end());
		return this.out.toString();
	}

	private static String statements(List<Point> points) {
		StringBuilder text = new StringBuilder();
		for (Point point : points) {
			if (point.failure() != null) {
				continue;
			}
			text.append((text.length() > 0) ? "; " : "").append("P = ").append(point.count()).append(": ");
			for (int slot = 0; slot < point.statements().size(); slot++) {
				StatementCounters counters = point.statements().get(slot);
				text.append((slot > 0) ? ", " : "")
					.append("node ")
					.append(slot + 1)
					.append(" ")
					.append(counters.selects())
					.append(" SELECT / ")
					.append(counters.updates())
					.append(" UPDATE / ")
					.append(counters.others())
					.append(" other");
			}
			text.append(String.format(Locale.ROOT, " in %.1f s", point.seconds()));
		}
		return text.toString();
	}

	private static String joinBalance(Change change, Duration settleTime, long renew) {
		long settled = change.balanceMillis() - settleTime.toMillis();
		return seconds(change.balanceMillis())
				+ String.format(Locale.ROOT, " (%.1f s = %.1f R)", settled / 1000.0, (double) settled / renew) + " "
				+ change.perNode().values();
	}

	private static String balance(Change change, long renew) {
		return seconds(change.balanceMillis())
				+ String.format(Locale.ROOT, " (%.1f R)", (double) change.balanceMillis() / renew) + " "
				+ change.perNode().values();
	}

	private static String seconds(long millis) {
		return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
	}

	private static String format(double value) {
		return String.format(Locale.ROOT, "%,.1f", value);
	}

	private void line(String text) {
		this.out.append(text).append('\n');
	}

	private void line() {
		this.out.append('\n');
	}

}
