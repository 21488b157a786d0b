package io.github.dbleader.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.dbleader.test.NodeProcess;

/**
 * How the suite starts the sample's processes: from its executable jar extracted
 * ({@code java -Djarmode=tools -jar ... extract}) with a class-data sharing archive
 * written by one training run ({@code -XX:ArchiveClassesAtExit}, the context refreshed
 * and closed), as Spring Boot's documentation recommends for fast starts. The same code
 * and configuration run; only the JVM's loading of their classes is cheaper. The suite
 * starts about forty processes on two cores, most three at a time, and each start costs
 * about 40% less CPU this way. Prepared once per jar and build, by whichever of the
 * suite's JVMs comes first (the others wait for it), under
 * {@code target/fault-runs/launch/<jar's name>}.
 */
final class SampleLaunch {

	/** Longest the extraction or the training run may take on a busy two-core machine. */
	private static final long PREPARE_TIMEOUT_SECONDS = 120;

	private static final Map<Path, SampleLaunch> prepared = new ConcurrentHashMap<>();

	private final Path jar;

	private final Path archive;

	private SampleLaunch(Path jar, Path archive) {
		this.jar = jar;
		this.archive = archive;
	}

	/**
	 * The launch of a jar, prepared on first use in this JVM.
	 * @param jar the sample's executable jar
	 * @return the launch
	 * @throws IllegalStateException if the jar cannot be extracted or the archive written
	 */
	static SampleLaunch of(Path jar) {
		return prepared.computeIfAbsent(jar.toAbsolutePath().normalize(), SampleLaunch::prepare);
	}

	/**
	 * A process of the sample: the extracted jar, with the archive and the default
	 * options.
	 * @return the builder; add arguments and readiness
	 */
	NodeProcess.Builder process() {
		List<String> options = new ArrayList<>(NodeProcess.DEFAULT_JVM_OPTIONS);
		options.add("-XX:SharedArchiveFile=" + this.archive);
		return NodeProcess.jar(this.jar).jvmOptions(options.toArray(String[]::new));
	}

	private static SampleLaunch prepare(Path jar) {
		String name = jar.getFileName().toString().replaceFirst("\\.jar$", "");
		// One preparation per jar and build, whichever of the suite's JVMs comes first;
		// the others, and the later executions' JVMs, wait for it and use it.
		Path launches = ForkLock.targetDirectory().resolve("fault-runs").resolve("launch");
		Path directory = launches.resolve(name);
		Path archive = directory.resolve(name + ".jsa");
		if (!Files.isRegularFile(jar)) {
			throw new IllegalStateException("The sample's executable jar " + jar + " is missing: build it with "
					+ "./mvnw -pl sample-app -am package -DskipTests");
		}
		Path extractedJar = directory.resolve("extracted").resolve(jar.getFileName());
		Path done = directory.resolve("prepared");
		String build = System.getProperty("fault.build-id", "local");
		try {
			Files.createDirectories(launches);
			try (FileChannel lockFile = FileChannel.open(launches.resolve(name + ".lock"), StandardOpenOption.CREATE,
					StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
				if (!(Files.isRegularFile(done) && Files.readString(done).equals(build))) {
					prepareIn(directory, jar, extractedJar, archive);
					Files.writeString(done, build);
				}
			}
			return new SampleLaunch(extractedJar, archive);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not prepare " + jar + " in " + directory, ex);
		}
	}

	private static void prepareIn(Path directory, Path jar, Path extractedJar, Path archive) throws IOException {
		deleteRecursively(directory);
		Files.createDirectories(directory);
		run(directory.resolve("extract.log"), List.of("-Djarmode=tools", "-jar", jar.toString(), "extract",
				"--destination", extractedJar.getParent().toString()));
		List<String> training = new ArrayList<>(NodeProcess.DEFAULT_JVM_OPTIONS);
		// Refreshed and closed, as a process of the suite loads its classes, on a
		// database of its own.
		training.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-Dspring.context.exit=onRefresh", "-jar",
				extractedJar.toString(), "--server.port=0", "--spring.main.banner-mode=off",
				"--spring.datasource.url=jdbc:h2:mem:training;MODE=MySQL"));
		run(directory.resolve("training.log"), training);
		if (!Files.isRegularFile(extractedJar) || !Files.isRegularFile(archive)) {
			throw new IllegalStateException("Preparing " + jar + " left no " + extractedJar + " or no " + archive
					+ "; see the logs in " + directory);
		}
	}

	private static void run(Path log, List<String> arguments) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(arguments);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			if (!process.waitFor(PREPARE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(
						command + " did not end within " + PREPARE_TIMEOUT_SECONDS + " s; see " + log);
			}
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		if (process.exitValue() != 0) {
			throw new IllegalStateException(
					command + " failed with exit value " + process.exitValue() + "; see " + log);
		}
	}

	private static void deleteRecursively(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.delete(path);
			}
		}
	}

}
