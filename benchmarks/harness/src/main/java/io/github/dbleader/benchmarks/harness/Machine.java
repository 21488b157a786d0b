package io.github.dbleader.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the machine is and how busy it is: {@code nproc}, the CPU model and the load
 * averages from {@code /proc}.
 */
final class Machine {

	private Machine() {
	}

	/**
	 * @return available processors, as {@code nproc} says
	 */
	static int processors() {
		return Runtime.getRuntime().availableProcessors();
	}

	/**
	 * @return the first {@code model name} of {@code /proc/cpuinfo}
	 */
	static String cpuModel() {
		try {
			return Files.readAllLines(Path.of("/proc/cpuinfo"))
				.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst()
				.orElse("unknown");
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	/**
	 * @return total memory from {@code /proc/meminfo}
	 */
	static String memory() {
		try {
			return Files.readAllLines(Path.of("/proc/meminfo"))
				.stream()
				.filter((line) -> line.startsWith("MemTotal"))
				.map((line) -> Long.parseLong(line.replaceAll("\\D", "")) / (1024 * 1024) + " GiB")
				.findFirst()
				.orElse("unknown");
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	/**
	 * @return the 1, 5 and 15 minute load averages from {@code /proc/loadavg}
	 */
	static List<Double> loadAverages() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return List.of(Double.parseDouble(fields[0]), Double.parseDouble(fields[1]), Double.parseDouble(fields[2]));
		}
		catch (IOException ex) {
			return List.of(Double.NaN, Double.NaN, Double.NaN);
		}
	}

	/**
	 * Wait until the 1-minute load average is below a threshold, checking every minute.
	 * @param threshold the load to wait for
	 * @param atMost how long to wait at most
	 * @return how long it waited
	 */
	static Duration awaitQuiet(double threshold, Duration atMost) throws InterruptedException {
		long start = System.nanoTime();
		while (loadAverages().get(0) >= threshold) {
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			if (waited.compareTo(atMost) >= 0) {
				System.out
					.println("The machine did not get quiet within " + atMost.toMinutes() + " min; running anyway");
				return waited;
			}
			System.out.println("Load " + loadAverages() + ": waiting for the 1-minute load to fall below " + threshold);
			Thread.sleep(60_000);
		}
		return Duration.ofNanos(System.nanoTime() - start);
	}

}
