package io.github.dbleader.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The summary of every scenario run by this build, rewritten after each one to
 * {@code target/fault-report.md} (system property {@code fault.report}) and printed. The
 * suite's forks write to the same report: each adds its row under a file lock, keeping
 * the rows of the same build (system property {@code fault.build-id}) and dropping older
 * ones.
 */
final class FaultReport {

	private static final String BUILD_MARK = "<!-- build ";

	private FaultReport() {
	}

	/**
	 * Add a scenario's outcome and rewrite the report.
	 * @param entry the outcome
	 */
	static synchronized void add(Entry entry) {
		System.out.println("[fault-report] " + entry.scenario() + ": " + entry.verdict() + "; failover "
				+ entry.failover() + "; overlap " + entry.overlapMillis() + " ms; stale-term writes "
				+ entry.staleWrites() + "; transitions " + entry.transitions() + "; " + entry.details());
		Path file = Path.of(System.getProperty("fault.report", "target/fault-report.md")).toAbsolutePath();
		String build = System.getProperty("fault.build-id", "local");
		try {
			Files.createDirectories(file.getParent());
			try (FileChannel lockFile = FileChannel.open(file.resolveSibling(file.getFileName() + ".lock"),
					StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
				List<String> rows = new ArrayList<>();
				if (Files.exists(file)) {
					List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
					if (lines.contains(BUILD_MARK + build + " -->")) {
						lines.stream()
							.filter((line) -> line.startsWith("| ") && !line.startsWith("| scenario |"))
							.forEach(rows::add);
					}
				}
				rows.add(row(entry));
				Files.writeString(file, report(build, rows), StandardCharsets.UTF_8);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String row(Entry entry) {
		return "| " + entry.scenario() + " | " + entry.verdict() + " | " + entry.failover() + " | "
				+ entry.overlapMillis() + " | " + entry.staleWrites() + " | " + entry.transitions() + " | "
				+ entry.details().replace("|", "\\|").replace("\n", " ") + " |";
	}

	private static String report(String build, List<String> rows) {
		StringBuilder report = new StringBuilder();
		report.append("# Fault report\n\n").append(BUILD_MARK).append(build).append(" -->\n\n");
		report.append("Lease L = ")
			.append(SampleNode.LEASE.toMillis())
			.append(" ms, renew interval R = ")
			.append(SampleNode.RENEW.toMillis())
			.append(" ms, guard G = ")
			.append(SampleNode.GUARD.toMillis())
			.append(" ms, statement timeout = ")
			.append(SampleNode.STATEMENT_TIMEOUT.toMillis())
			.append(" ms, job interval = ")
			.append(SampleNode.JOB_INTERVAL.toMillis())
			.append(" ms.\n\n");
		report.append("| scenario | verdict | failover | overlap (ms) | stale-term writes | transitions | details |\n");
		report.append("|---|---|---|---|---|---|---|\n");
		rows.forEach((row) -> report.append(row).append('\n'));
		return report.toString();
	}

	/**
	 * One scenario's outcome.
	 *
	 * @param scenario the scenario
	 * @param verdict {@code pass}, or {@code FAIL} and the violated property
	 * @param failover the measured failover or recovery time(s), as text
	 * @param overlapMillis total overlap of fenced runs of different holders
	 * @param staleWrites fenced runs of a stale term that committed
	 * @param transitions leadership grants plus revocations logged by all nodes
	 * @param details other measurements
	 */
	record Entry(String scenario, String verdict, String failover, long overlapMillis, int staleWrites, int transitions,
			String details) {
	}

}
