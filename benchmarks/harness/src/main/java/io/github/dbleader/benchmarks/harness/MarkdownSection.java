package io.github.dbleader.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The Markdown of a report section: lines of text, and a table with a column per result
 * and a row per measurement.
 *
 * @param <T> the type of a column's result
 */
final class MarkdownSection<T> {

	private final StringBuilder out = new StringBuilder();

	private final List<T> columns;

	/**
	 * @param columns the results, one column each, in order
	 */
	MarkdownSection(List<T> columns) {
		this.columns = columns;
	}

	void line(String text) {
		this.out.append(text).append('\n');
	}

	void line() {
		line("");
	}

	/**
	 * The table's header: an empty corner, then each column's label, and the rule below.
	 * @param label a column's label
	 */
	void header(Function<T, String> label) {
		StringBuilder header = new StringBuilder("| |");
		StringBuilder rule = new StringBuilder("|---|");
		for (T column : this.columns) {
			header.append(' ').append(label.apply(column)).append(" |");
			rule.append("---|");
		}
		line(header.toString());
		line(rule.toString());
	}

	/**
	 * A row of the table.
	 * @param name what the row measures
	 * @param cell a column's value
	 */
	void row(String name, Function<T, String> cell) {
		StringBuilder row = new StringBuilder("| ").append(name).append(" |");
		for (T column : this.columns) {
			row.append(' ').append(cell.apply(column)).append(" |");
		}
		line(row.toString());
	}

	/**
	 * @return the text so far
	 */
	String text() {
		return this.out.toString();
	}

	/**
	 * The opening words of a section that one run of the harness measured: when, with
	 * which command, how long it took and how busy the machine was.
	 * @param startedAt when the run started
	 * @param command how the run was started, and at which commit, with any note to
	 * follow it
	 * @param runtime how long it took
	 * @param load the load averages around the run
	 * @return the sentence, ending with a full stop
	 */
	static String measured(Instant startedAt, String command, Duration runtime, String load) {
		return "Measured on " + measuredAt(startedAt) + " with " + command + ", which took " + runtime.toMinutes()
				+ " min " + runtime.toSecondsPart() + " s; load average (1, 5, 15 min) " + load + ".";
	}

	/**
	 * When a run started, in the words of every section.
	 * @param startedAt when the run started
	 * @return the minute, in UTC
	 */
	static String measuredAt(Instant startedAt) {
		return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").format(startedAt.atOffset(ZoneOffset.UTC));
	}

	/**
	 * Format a number the same way on every machine.
	 * @param format the format
	 * @param value the value
	 * @return the text
	 */
	static String format(String format, Object value) {
		return String.format(Locale.ROOT, format, value);
	}

}
