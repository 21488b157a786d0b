package io.github.dbleader.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The summary of every scenario run in this JVM, rewritten after each one to
 * {@code target/fault-report.md} (system property {@code fault.report}) and printed.
 */
final class FaultReport {

	private static final List<Entry> entries = new ArrayList<>();

	private FaultReport() {
	}

	/**
	 * Add a scenario's outcome and rewrite the report.
	 * @param entry the outcome
	 */
	static synchronized void add(Entry entry) {
		entries.add(entry);
		System.out.println("[fault-report] " + entry.scenario() + ": " + entry.verdict() + "; failover "
				+ entry.failover() + "; overlap " + entry.overlapMillis() + " ms; stale-term writes "
				+ entry.staleWrites() + "; transitions " + entry.transitions() + "; " + entry.details());
		write();
	}

	private static void write() {
		StringBuilder report = new StringBuilder();
		report.append("# Fault report\n\n");
		report.append("Lease L = ").append(SampleNode.LEASE.toMillis()).append(" ms, renew interval R = ")
			.append(SampleNode.RENEW.toMillis()).append(" ms, guard G = ").append(SampleNode.GUARD.toMillis())
			.append(" ms, statement timeout = ").append(SampleNode.STATEMENT_TIMEOUT.toMillis())
			.append(" ms, job interval = ").append(SampleNode.JOB_INTERVAL.toMillis()).append(" ms.\n\n");
		report.append("| scenario | verdict | failover | overlap (ms) | stale-term writes | transitions | details |\n");
		report.append("|---|---|---|---|---|---|---|\n");
		for (Entry entry : entries) {
			report.append("| ").append(entry.scenario()).append(" | ").append(entry.verdict()).append(" | ")
				.append(entry.failover()).append(" | ").append(entry.overlapMillis()).append(" | ")
				.append(entry.staleWrites()).append(" | ").append(entry.transitions()).append(" | ")
				.append(entry.details().replace("|", "\\|").replace("\n", " ")).append(" |\n");
		}
		Path file = Path.of(System.getProperty("fault.report", "target/fault-report.md"));
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			Files.writeString(file, report, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
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
	record Entry(String scenario, String verdict, String failover, long overlapMillis, int staleWrites,
			int transitions, String details) {
	}

}
