package io.github.dbleader.benchmarks.harness;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the JMH microbenchmarks in their own JVM and reads their results: the scores from
 * JMH's CSV, and from the benchmark's own report the lease repository calls made by the
 * benchmark thread and by the heartbeat during each trial.
 */
final class Microbenchmarks {

	/**
	 * JMH's options: one fork, three warm-up and five measurement iterations of one
	 * second.
	 */
	static final List<String> JMH_OPTIONS = List.of("-f", "1", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s");

	private Microbenchmarks() {
	}

	/**
	 * Run JMH and collect the results.
	 * @param benchmarks the benchmarks directory
	 * @param workDirectory where JMH's files go
	 * @return one result per benchmark method, in JMH's order
	 */
	static List<Result> run(Path benchmarks, Path workDirectory) throws IOException, InterruptedException {
		Path module = benchmarks.resolve("microbenchmarks");
		String classpath = module.resolve("target/classes") + File.pathSeparator
				+ Files.readString(module.resolve("target/classpath.txt")).trim();
		Files.createDirectories(workDirectory);
		Path csv = workDirectory.resolve("jmh.csv");
		Path calls = workDirectory.resolve("jmh-repository-calls.csv");
		Files.deleteIfExists(csv);
		Files.deleteIfExists(calls);
		List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
				classpath, "org.openjdk.jmh.Main"));
		command.addAll(JMH_OPTIONS);
		command.addAll(List.of("-rf", "csv", "-rff", csv.toString(), "-jvmArgsAppend", "-Dbench.jmh.report=" + calls));
		Process jmh = new ProcessBuilder(command).inheritIO().start();
		if (jmh.waitFor() != 0) {
			throw new IllegalStateException("JMH failed with exit code " + jmh.exitValue());
		}
		Map<String, String[]> callsByBenchmark = new LinkedHashMap<>();
		for (String line : Files.readAllLines(calls)) {
			String[] fields = line.split(",");
			callsByBenchmark.put(shortName(fields[0]), fields);
		}
		List<Result> results = new ArrayList<>();
		for (String line : Files.readAllLines(csv).subList(1, Files.readAllLines(csv).size())) {
			String[] fields = line.replace("\"", "").split(",");
			String name = shortName(fields[0]);
			String[] call = callsByBenchmark.get(name);
			results.add(new Result(name, Double.parseDouble(fields[4]), parseError(fields[5]), Long.parseLong(call[1]),
					Long.parseLong(call[2]), Double.parseDouble(call[3]), Integer.parseInt(call[4]),
					Boolean.parseBoolean(call[5])));
		}
		return results;
	}

	private static double parseError(String field) {
		return field.equals("NaN") ? Double.NaN : Double.parseDouble(field);
	}

	private static String shortName(String benchmark) {
		return benchmark.substring(benchmark.lastIndexOf('.') + 1);
	}

	/**
	 * One benchmark's result.
	 *
	 * @param benchmark the benchmark method
	 * @param nanos average time per call
	 * @param error JMH's 99.9% error of the average
	 * @param benchmarkThreadCalls lease repository calls made by any thread but the
	 * election's during the trial
	 * @param heartbeatCalls lease repository calls made by the election's threads
	 * @param seconds length of the trial
	 * @param revocations leadership revocations of the leading service during the trial
	 * @param rolesHeld whether leader and follower still held their roles at the end
	 */
	record Result(String benchmark, double nanos, double error, long benchmarkThreadCalls, long heartbeatCalls,
			double seconds, int revocations, boolean rolesHeld) {
	}

}
