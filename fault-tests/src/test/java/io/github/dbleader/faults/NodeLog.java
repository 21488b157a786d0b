package io.github.dbleader.faults;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.dbleader.test.ProcessLog;

/**
 * The {@link ProcessLog} of one sample process, read from a position on: the leadership
 * changes the election logged (with the wall-clock time of each line, the same clock as
 * the database server's on this machine) and any stack trace.
 */
final class NodeLog {

	private static final Pattern GRANTED = Pattern
		.compile("Election '" + FaultDatabase.ELECTION + "': leadership granted to '([^']+)' with term (\\d+)");

	private static final Pattern REVOKED = Pattern.compile(
			"Election '" + FaultDatabase.ELECTION + "': leadership of term (\\d+) revoked from '([^']+)' \\((\\w+)\\)");

	private static final Pattern STACK_TRACE = Pattern
		.compile("^(\\s+at [\\w.$/]+\\(.*|Caused by: .*|Exception in thread .*)$");

	private static final Pattern LOG_LINE = Pattern
		.compile("^\\d{4}-\\d\\d-\\d\\dT\\S+\\s+(TRACE|DEBUG|INFO|WARN|ERROR)\\s");

	/**
	 * HikariCP's warning when it evicts a broken connection: the pool logs the driver's
	 * exception with its stack trace; whether anything reaches the application is decided
	 * by the caller of the pool (the election, or the fenced transaction).
	 */
	private static final Pattern POOL_BROKEN_CONNECTION = Pattern
		.compile("WARN .* com\\.zaxxer\\.hikari\\.pool\\.ProxyConnection +: (\\S+) - Connection .* marked as broken");

	/** What the sample's job logs when a run failed, before the reason. */
	static final String JOB_RUN_NOT_RECORDED = "Job run not recorded: ";

	private final ProcessLog log;

	NodeLog(ProcessLog log) {
		this.log = log;
	}

	/**
	 * @return the current end of the log, to read from later
	 */
	long mark() {
		return this.log.mark();
	}

	boolean contains(String text) {
		return this.log.contains(text);
	}

	/**
	 * The leadership changes logged from a position on.
	 * @param from a {@link #mark()}
	 * @return the changes in order
	 */
	List<Transition> transitions(long from) {
		List<Transition> transitions = new ArrayList<>();
		for (String line : lines(from)) {
			Matcher granted = GRANTED.matcher(line);
			if (granted.find()) {
				transitions.add(new Transition(time(line), true, Long.parseLong(granted.group(2)), "GRANTED"));
				continue;
			}
			Matcher revoked = REVOKED.matcher(line);
			if (revoked.find()) {
				transitions.add(new Transition(time(line), false, Long.parseLong(revoked.group(1)), revoked.group(3)));
			}
		}
		return transitions;
	}

	/**
	 * The first line from a position on that contains a text.
	 * @param from a {@link #mark()}
	 * @param text what the line contains
	 * @return the line, if any
	 */
	Optional<Line> firstLine(long from, String text) {
		return lines(from).stream()
			.filter((line) -> line.contains(text) && LOG_LINE.matcher(line).find())
			.findFirst()
			.map((line) -> new Line(time(line), line));
	}

	/**
	 * The stack traces logged from a position on, each with the log line it belongs to.
	 * @param from a {@link #mark()}
	 * @return the traces, empty if none
	 */
	List<StackTrace> stackTraces(long from) {
		List<StackTrace> traces = new ArrayList<>();
		String header = "";
		List<String> current = null;
		for (String line : lines(from)) {
			if (STACK_TRACE.matcher(line).matches()) {
				if (current == null) {
					current = new ArrayList<>();
					traces.add(new StackTrace(header, current));
				}
				current.add(line);
			}
			else {
				if (LOG_LINE.matcher(line).find()) {
					header = line;
					current = null;
				}
			}
		}
		return traces;
	}

	/**
	 * The lines from a position on that contain a text.
	 * @param from a {@link #mark()}
	 * @param text what the lines contain
	 * @return the lines in order
	 */
	List<String> linesContaining(long from, String text) {
		return lines(from).stream().filter((line) -> line.contains(text)).toList();
	}

	private List<String> lines(long from) {
		return this.log.lines(from);
	}

	private static long time(String line) {
		int end = line.indexOf(' ');
		try {
			return OffsetDateTime.parse(line.substring(0, Math.max(0, end))).toInstant().toEpochMilli();
		}
		catch (DateTimeParseException ex) {
			throw new IllegalStateException("Log line without a leading timestamp: " + line, ex);
		}
	}

	/**
	 * A stack trace in the log.
	 *
	 * @param logLine the log line it belongs to
	 * @param lines its lines
	 */
	record StackTrace(String logLine, List<String> lines) {

		/**
		 * The pool whose broken connection HikariCP logged with this trace.
		 * @return the pool name, or {@code null} if the trace is not such a warning
		 */
		String brokenConnectionPool() {
			Matcher matcher = POOL_BROKEN_CONNECTION.matcher(this.logLine);
			return matcher.find() ? matcher.group(1) : null;
		}

		/**
		 * @return whether HikariCP logged it for a broken connection of the election's
		 * own pool
		 */
		boolean isElectionPoolBrokenConnection() {
			String pool = brokenConnectionPool();
			return pool != null && pool.endsWith("-leader-election");
		}

	}

	/**
	 * A log line.
	 *
	 * @param atMillis wall-clock time of the line, epoch milliseconds
	 * @param text the whole line
	 */
	record Line(long atMillis, String text) {
	}

	/**
	 * A leadership change as logged.
	 *
	 * @param atMillis wall-clock time of the log line, epoch milliseconds
	 * @param granted {@code true} if granted, {@code false} if revoked
	 * @param term the term
	 * @param reason {@code GRANTED} or the revocation reason
	 */
	record Transition(long atMillis, boolean granted, long term, String reason) {
	}

}
