package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

import io.github.dbleader.benchmarks.harness.ScaleBenchmark.Point;
import io.github.dbleader.benchmarks.harness.ScaleBenchmark.Timer;

/**
 * Writes the scale section of {@code RESULTS.md}. The section sits between two HTML
 * comment markers so that a scale run replaces only it and a full run keeps it.
 */
final class ScaleReport {

	static final String BEGIN = "<!-- scale:begin -->";

	static final String END = "<!-- scale:end -->";

	private static final MarkedSection MARKS = new MarkedSection(BEGIN, END);

	private final StringBuilder out = new StringBuilder();

	private ScaleReport() {
	}

	/**
	 * Put a section into a report: in place of its previous version, or at the end.
	 * @param report the report's text (may be empty)
	 * @param section the section, markers included
	 * @return the new text
	 */
	static String splice(String report, String section) {
		return MARKS.splice(report, section);
	}

	/**
	 * The scale section of a report, markers included, or empty if it has none.
	 * @param report the report's text
	 * @return the section
	 */
	static String section(String report) {
		return MARKS.find(report);
	}

	/**
	 * Render the section.
	 * @param points the measured points, in order
	 * @param settings the run's settings
	 * @param command how the run was started
	 * @param startedAt when it started
	 * @param runtime how long it took
	 * @param warmUp warm-up of each point
	 * @param window quiet window of each point
	 * @param load load averages at the start and the end
	 * @return the Markdown section, markers included
	 */
	static String markdown(List<Point> points, RunSettings settings, String command, Instant startedAt,
			Duration runtime, Duration warmUp, Duration window, String load) {
		return new ScaleReport().render(points, settings, command, startedAt, runtime, warmUp, window, load);
	}

	private String render(List<Point> points, RunSettings settings, String command, Instant startedAt, Duration runtime,
			Duration warmUp, Duration window, String load) {
		double renew = settings.renewInterval().toMillis() / 1000.0;
		line(BEGIN);
		line("## Scale: many elections per node");
		line();
		line(MarkdownSection.measured(startedAt, "`" + command + "`", runtime, load)
				+ " Three processes per point, lease " + settings.lease().toMillis() + " ms, renew interval "
				+ settings.renewInterval().toMillis()
				+ " ms, on the same MariaDB as above. Each point waits until every election has a leader, warms up "
				+ warmUp.toSeconds() + " s, and measures a quiet window of " + window.toSeconds() + " s; then `kill -9`"
				+ " of the node that leads the most.");
		line();
		line("| system | elections | all led after start | statements per node per s (min-max of 3) "
				+ "| per node per renew interval (max) | heartbeat round p50 / p99 / mean / max (worst node) "
				+ "| failed rounds (first failing statement) | changes of holder in the quiet window | kill -9 of the node leading the most: "
				+ "all of its elections led elsewhere after |");
		line("|---|---:|---:|---:|---:|---|---:|---:|---|");
		for (Point point : points) {
			String name = point.system().label() + " | " + String.format(Locale.ROOT, "%,d", point.size());
			if (point.failure() != null) {
				line("| " + name + " | " + point.failure().replace("|", "/") + " | | | | | | |");
				continue;
			}
			String allLed = (point.allLed() != null) ? seconds(point.allLed().toMillis())
					: "not within " + ScaleBenchmark.START_TIMEOUT.toMinutes() + " min";
			line("| " + name + " | " + allLed + " | " + format(point.minStatementsPerSecond()) + " - "
					+ format(point.maxStatementsPerSecond()) + " | " + format(point.maxStatementsPerSecond() * renew)
					+ " | " + rounds(point.rounds()) + " | " + failed(point) + " | " + changes(point) + " | "
					+ failover(point) + " |");
		}
		line();
		line("- **Statements** are the server's counters (`INFORMATION_SCHEMA.USER_STATISTICS`, `userstat`) of each"
				+ " node's own database user over the quiet window: everything the process sent, SELECT, UPDATE and"
				+ " others (COMMIT, SET) alike.");
		line("- **This starter**: the elections are `leader-election.elections`, given in a generated properties file"
				+ " (`--spring.config.additional-location`). A heartbeat round is two statements whatever the number"
				+ " of elections: refresh the node's row, its session, which renews every lease it holds (a leader"
				+ " every round, a follower every second or third), and read its view of the leases (every node row,"
				+ " the lease rows changed since its last read and a slice of 1,000 elections by key; all of them up"
				+ " to 1,000 elections). The round times are the nodes' `leader.election.heartbeat` timer (percentiles"
				+ " over about the last minute, read over `/actuator/metrics`); the statement timeout is half the renew"
				+ " interval (" + settings.renewInterval().dividedBy(2).toMillis() + " ms); a round that fails (a"
				+ " statement timed out or failed) counts as failed, and the statement named is the one each node logged"
				+ " when it found the database unreachable (summed over the nodes: refresh node, read view, or a"
				+ " change of holder). A change of holder is a"
				+ " lease whose term changed, or which was no longer live, between the start and the end of the window."
				+ " The kill -9 time is from the kill to the last `acquired_at` of the killed node's elections (database"
				+ " clock).");
		line("- **Spring Integration**: one `LockRegistryLeaderInitiator` per role on one `JdbcLockRegistry`, heart"
				+ " beat and busy wait at the renew interval, lock time to live the lease. A change of holder is a role"
				+ " whose `INT_LOCK` row has another client or another `CREATED_DATE` (set when a client takes the lock,"
				+ " not when it renews it) at the end of the window; the kill -9 time is when the"
				+ " harness's poll (every 50 ms) first saw every role of the killed node held by another client.");
		line("- **ShedLock**: every node tries each lock once per renew interval on its scheduler thread"
				+ " (`lockAtMostFor` the lease, `lockAtLeastFor` half the renew interval) and releases the ones it got;"
				+ " ShedLock has no leader between runs, so there are no changes of holder or failover to measure. A"
				+ " node that keeps up sends at least one statement per lock and renew interval.");
		line();
		line(END);
		return this.out.toString();
	}

	private static String rounds(List<Timer> rounds) {
		if (rounds.isEmpty()) {
			return "n/a";
		}
		double p50 = rounds.stream().mapToDouble(Timer::p50Millis).max().orElse(Double.NaN);
		double p99 = rounds.stream().mapToDouble(Timer::p99Millis).max().orElse(Double.NaN);
		double mean = rounds.stream().mapToDouble(Timer::meanMillis).max().orElse(Double.NaN);
		double max = rounds.stream().mapToDouble(Timer::maxMillis).max().orElse(Double.NaN);
		return millis(p50) + " / " + millis(p99) + " / " + millis(mean) + " / " + millis(max);
	}

	private static String failed(Point point) {
		if (point.rounds().isEmpty()) {
			return "n/a";
		}
		long failed = point.rounds().stream().mapToLong(Timer::failed).sum();
		if (point.failedStatements().isEmpty()) {
			return Long.toString(failed);
		}
		StringBuilder statements = new StringBuilder();
		point.failedStatements()
			.forEach((statement, count) -> statements.append((statements.length() > 0) ? ", " : "")
				.append(statement)
				.append(" ")
				.append(count));
		return failed + " (" + statements + ")";
	}

	private static String changes(Point point) {
		if (point.changes() < 0) {
			return "n/a";
		}
		return point.changes() + " (of " + String.format(Locale.ROOT, "%,d", point.held()) + " led at the end)";
	}

	private static String failover(Point point) {
		if (point.failover() == null) {
			return "n/a";
		}
		String held = String.format(Locale.ROOT, "%,d", point.failover().held());
		return point.failover()
			.allMovedMillis()
			.stream()
			.mapToObj((millis) -> seconds(millis) + " (" + held + " elections)")
			.findFirst()
			.orElse("not all within a minute (" + held + " elections)");
	}

	private static String millis(double millis) {
		return Double.isNaN(millis) ? "?" : String.format(Locale.ROOT, (millis < 10) ? "%.1f ms" : "%.0f ms", millis);
	}

	private static String seconds(long millis) {
		return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
	}

	private static String format(double value) {
		return String.format(Locale.ROOT, (value < 10) ? "%.1f" : "%,.0f", value);
	}

	private void line(String text) {
		this.out.append(text).append('\n');
	}

	private void line() {
		this.out.append('\n');
	}

}
