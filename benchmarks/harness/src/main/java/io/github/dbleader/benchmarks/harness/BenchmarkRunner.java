package io.github.dbleader.benchmarks.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the whole benchmark and writes {@code RESULTS.md} and {@code results.svg}. Started
 * by {@code benchmarks/run}, which builds the modules and their classpaths first.
 *
 * <p>
 * Options: {@code --benchmarks DIR} (the benchmarks directory), {@code --output DIR}
 * (default: the benchmarks directory), {@code --jdbc-url jdbc:mysql://HOST:PORT},
 * {@code --user}, {@code --password}, {@code --trials N} (10), {@code --pause-trials N}
 * (3), {@code --steady-seconds N} (30), {@code --seed N} (1), {@code --systems
 * ours,shedlock,integration}, {@code --skip-jmh}, {@code --no-wait} (do not wait for a
 * quiet machine), {@code --quick} (2 trials, 1 pause trial, 10 s steady state, no JMH, no
 * wait, output under {@code target/quick}), {@code --command TEXT} (how the run was
 * started, for the report), {@code --revision TEXT}.
 *
 * <p>
 * {@code --scale} runs the scale benchmark instead ({@link ScaleBenchmark}) and replaces
 * only its section of {@code RESULTS.md}:
 * {@code --scale-sizes 1,10,100,1000,10000,100000},
 * {@code --scale-limits shedlock=1000,integration=100} (the largest size each system runs
 * at; larger ones are listed as not run), {@code --scale-warm-up N} (30 s),
 * {@code --scale-window N} (60 s), {@code --systems}. With {@code --quick}: sizes 1, 10
 * and 100, 10 s warm-up, 20 s window, output under {@code target/quick}. A full run keeps
 * the scale section of the previous {@code RESULTS.md}.
 *
 * <p>
 * {@code --locks} runs the lock-mode comparison instead ({@link LockReport}): the job
 * under this starter's {@code @LeaderOnly} and {@code @ClusterLock} and ShedLock's
 * {@code @SchedulerLock} ({@code --systems ours,ours_lock,shedlock}), and the long run of
 * issue #21 ({@code ours_long}: {@code @ClusterLock(maxFor)} kept alive,
 * {@code shedlock_long}: ShedLock's {@code KeepAliveLockProvider}; runs of three leases)
 * and ShedLock's annotations on this starter's provider ({@code shedlock_provider}), each
 * with the steady window, the failover trials and the pause trials, and replaces only its
 * section of {@code RESULTS.md}; a full run keeps it. The usual options apply
 * ({@code --trials}, {@code --pause-trials}, {@code --steady-seconds}; with
 * {@code --quick}: 2 trials, 1 pause trial, a 10 s window, output under
 * {@code target/quick}).
 *
 * <p>
 * {@code --partitions} runs the partition benchmark instead ({@link PartitionBenchmark})
 * and replaces only its section of {@code RESULTS.md}: {@code --partition-counts
 * 12,120,1200,10000}, {@code --partition-settle N} (5 s), {@code --partition-warm-up N}
 * (15 s), {@code --partition-window N} (30 s); with {@code --quick}: 12 and 120, 5 s
 * warm-up, 10 s window, output under {@code target/quick}. The other runs keep its
 * section.
 *
 * <p>
 * {@code --load} runs the load comparison instead (issue #20; {@link LoadReport}): the
 * leader-mode systems ({@code --systems ours,shedlock,integration}) under the fault
 * suite's M2 load, and replaces only its section of {@code RESULTS.md}:
 * {@code --load-baseline N} (20 s of quiet first), {@code --load-seconds N} (60 s of
 * load), {@code --load-tail N} (20 s after it); with {@code --quick}: 10, 20 and 10 s,
 * output under {@code target/quick}. The other runs keep its section.
 *
 * <p>
 * {@code --bridge} runs the migration bridge's check instead (issue #39;
 * {@link BridgeBenchmark}, {@link BridgeReport}): one node on ShedLock's own provider
 * beside one on this starter's with the bridge on ShedLock's table, then the same pair
 * without the bridge as the control, each for {@code --bridge-seconds N} (25 s), and
 * replaces only its section of {@code RESULTS.md}. The other runs keep its section.
 */
public final class BenchmarkRunner {

	/** The 1-minute load average below which the machine counts as quiet. */
	private static final double QUIET_LOAD = 1.5;

	/** The systems of the lock-mode comparison. */
	private static final String LOCK_SYSTEMS = "ours,ours_lock,shedlock,shedlock_provider,ours_long,shedlock_long";

	/** The longest wait for a quiet machine. */
	private static final Duration QUIET_WAIT = Duration.ofMinutes(20);

	private BenchmarkRunner() {
	}

	public static void main(String[] args) throws Exception {
		Instant startedAt = Instant.now();
		long started = System.nanoTime();
		Map<String, String> options = parse(args);
		boolean quick = options.containsKey("quick");
		Path benchmarks = Path.of(options.getOrDefault("benchmarks", "benchmarks")).toAbsolutePath().normalize();
		Path output = Path.of(options.getOrDefault("output",
				quick ? benchmarks.resolve("target/quick").toString() : benchmarks.toString()));
		RunSettings settings = new RunSettings(benchmarks,
				options.getOrDefault("jdbc-url", "jdbc:mysql://127.0.0.1:3306"), options.getOrDefault("user", "root"),
				options.getOrDefault("password", ""), Duration.ofSeconds(3), Duration.ofMillis(500),
				Duration.ofSeconds(1), Duration.ofMillis(100), 3,
				Integer.parseInt(options.getOrDefault("trials", quick ? "2" : "10")),
				Integer.parseInt(options.getOrDefault("pause-trials", quick ? "1" : "3")),
				Duration.ofSeconds(Long.parseLong(options.getOrDefault("steady-seconds", quick ? "10" : "30"))),
				Long.parseLong(options.getOrDefault("seed", "1")), !quick && !options.containsKey("skip-jmh"),
				!quick && !options.containsKey("no-wait"));
		List<SystemUnderTest> systems = new ArrayList<>();
		String defaultSystems = options.containsKey("locks") ? LOCK_SYSTEMS : "ours,shedlock,integration";
		for (String name : options.getOrDefault("systems", defaultSystems).split(",")) {
			systems.add(SystemUnderTest.valueOf(name.trim().toUpperCase()));
		}
		if (options.containsKey("scale")) {
			scale(options, settings, systems, output, startedAt, started);
			return;
		}
		if (options.containsKey("locks")) {
			locks(options, settings, output, startedAt, started);
			return;
		}
		if (options.containsKey("partitions")) {
			partitions(options, settings, output, startedAt, started);
			return;
		}
		if (options.containsKey("load")) {
			load(options, settings, systems, output, startedAt, started);
			return;
		}
		if (options.containsKey("bridge")) {
			bridge(options, settings, output, startedAt, started);
			return;
		}
		Duration waited = Duration.ZERO;
		if (settings.waitForQuiet()) {
			waited = Machine.awaitQuiet(QUIET_LOAD, QUIET_WAIT);
		}
		List<Double> loadBefore = Machine.loadAverages();
		System.out.println("Load average before: " + loadBefore);
		Path work = output.resolve("target/benchmark-run");
		if (quick) {
			work = output;
		}
		List<Microbenchmarks.Result> microbenchmarks = settings.microbenchmarks()
				? Microbenchmarks.run(benchmarks, work.resolve("jmh")) : List.of();
		List<SystemResults> results = new ArrayList<>();
		Map<String, String> versions;
		try (Database database = Database.prepare(settings)) {
			versions = versions(benchmarks, database, options.get("revision"));
			for (SystemUnderTest system : systems) {
				System.out.println("== " + system.label());
				results.add(new SystemBenchmark(system, settings, database, work.resolve("logs")).run());
			}
		}
		List<Double> loadAfter = Machine.loadAverages();
		System.out.println("Load average after: " + loadAfter);
		RunRecord run = new RunRecord(settings, options.getOrDefault("command", "bash benchmarks/run"), startedAt,
				Duration.ofNanos(System.nanoTime() - started), waited, loadBefore, loadAfter, versions, microbenchmarks,
				results);
		Files.createDirectories(output);
		Files.writeString(output.resolve("results.svg"), Chart.svg(results, settings.lease().toMillis()),
				StandardCharsets.UTF_8);
		Path report = output.resolve("RESULTS.md");
		String previous = Files.exists(report) ? Files.readString(report, StandardCharsets.UTF_8) : "";
		String scaleSection = ScaleReport.section(previous);
		String written = ScaleReport.splice(ResultsReport.markdown(run, "results.svg"), scaleSection);
		for (MarkedSection marks : List.of(LockReport.MARKS, PartitionReport.MARKS, LoadReport.MARKS,
				BridgeReport.MARKS)) {
			String kept = marks.find(previous);
			written = kept.isEmpty() ? written : marks.splice(written, kept);
		}
		Files.writeString(report, written, StandardCharsets.UTF_8);
		System.out.println("Wrote " + output.resolve("RESULTS.md") + " and " + output.resolve("results.svg"));
	}

	/**
	 * The scale benchmark: every system at every size up to its limit, one point after
	 * the other; then its section of {@code RESULTS.md} is replaced.
	 */
	private static void scale(Map<String, String> options, RunSettings settings, List<SystemUnderTest> systems,
			Path output, Instant startedAt, long started) throws Exception {
		boolean quick = options.containsKey("quick");
		List<Integer> sizes = new ArrayList<>();
		for (String size : options.getOrDefault("scale-sizes", quick ? "1,10,100" : "1,10,100,1000,10000,100000")
			.split(",")) {
			sizes.add(Integer.parseInt(size.trim()));
		}
		Map<SystemUnderTest, Integer> limits = new LinkedHashMap<>();
		for (String limit : options.getOrDefault("scale-limits", "shedlock=1000,integration=100").split(",")) {
			String[] parts = limit.split("=");
			limits.put(SystemUnderTest.valueOf(parts[0].trim().toUpperCase()), Integer.parseInt(parts[1].trim()));
		}
		Duration warmUp = Duration
			.ofSeconds(Long.parseLong(options.getOrDefault("scale-warm-up", quick ? "10" : "30")));
		Duration window = Duration.ofSeconds(Long.parseLong(options.getOrDefault("scale-window", quick ? "20" : "60")));
		List<Double> loadBefore = Machine.loadAverages();
		List<ScaleBenchmark.Point> points = new ArrayList<>();
		try (Database database = Database.prepare(settings)) {
			ScaleBenchmark benchmark = new ScaleBenchmark(settings, database, output.resolve("target/scale-run"),
					warmUp, window);
			for (SystemUnderTest system : systems) {
				for (int size : sizes) {
					Integer limit = limits.get(system);
					points.add(
							(limit != null && size > limit)
									? ScaleBenchmark.notRun(system, size,
											"not run: above its limit of " + String.format(Locale.ROOT, "%,d", limit)
													+ " (benchmarks/README.md says why)")
									: benchmark.run(system, size));
				}
			}
		}
		List<Double> loadAfter = Machine.loadAverages();
		String section = ScaleReport.markdown(points, settings, commandAt(options, "bash benchmarks/run --scale"),
				startedAt, Duration.ofNanos(System.nanoTime() - started), warmUp, window,
				loadBefore + " at the start, " + loadAfter + " at the end");
		Files.createDirectories(output);
		Path results = output.resolve("RESULTS.md");
		String report = Files.exists(results) ? Files.readString(results, StandardCharsets.UTF_8) : "";
		Files.writeString(results, ScaleReport.splice(report, section), StandardCharsets.UTF_8);
		System.out.println("Wrote the scale section of " + results);
	}

	/**
	 * The lock-mode comparison: the job under {@code @LeaderOnly}, {@code @ClusterLock}
	 * and ShedLock's {@code @SchedulerLock}, each with the full set of measurements; then
	 * its section of {@code RESULTS.md} is replaced.
	 */
	private static void locks(Map<String, String> options, RunSettings settings, Path output, Instant startedAt,
			long started) throws Exception {
		List<SystemUnderTest> systems = new ArrayList<>();
		for (String name : options.getOrDefault("systems", LOCK_SYSTEMS).split(",")) {
			systems.add(SystemUnderTest.valueOf(name.trim().toUpperCase()));
		}
		List<Double> loadBefore = Machine.loadAverages();
		List<SystemResults> results = new ArrayList<>();
		try (Database database = Database.prepare(settings)) {
			for (SystemUnderTest system : systems) {
				System.out.println("== " + system.label());
				results.add(
						new SystemBenchmark(system, settings, database, output.resolve("target/locks-run/logs")).run());
			}
		}
		List<Double> loadAfter = Machine.loadAverages();
		String mode = options.containsKey("quick")
				? "quick mode: " + settings.trials() + " trials per fault, " + settings.pauseTrials()
						+ " pause trial(s), a " + settings.steadyState().toSeconds() + " s window"
				: settings.trials() + " trials per fault, " + settings.pauseTrials() + " pause trials, a "
						+ settings.steadyState().toSeconds() + " s window";
		String section = LockReport.markdown(results, settings, mode, commandAt(options, "bash benchmarks/run --locks"),
				startedAt, Duration.ofNanos(System.nanoTime() - started),
				loadBefore + " at the start, " + loadAfter + " at the end");
		writeSection(output, LockReport.MARKS, section, "lock-mode");
	}

	/**
	 * The partition benchmark ({@link PartitionBenchmark}) at every number of partitions;
	 * then its section of {@code RESULTS.md} is replaced.
	 */
	private static void partitions(Map<String, String> options, RunSettings settings, Path output, Instant startedAt,
			long started) throws Exception {
		boolean quick = options.containsKey("quick");
		List<Integer> counts = new ArrayList<>();
		for (String count : options.getOrDefault("partition-counts", quick ? "12,120" : "12,120,1200,10000")
			.split(",")) {
			counts.add(Integer.parseInt(count.trim()));
		}
		Duration settleTime = Duration.ofSeconds(Long.parseLong(options.getOrDefault("partition-settle", "5")));
		Duration warmUp = Duration
			.ofSeconds(Long.parseLong(options.getOrDefault("partition-warm-up", quick ? "5" : "15")));
		Duration window = Duration
			.ofSeconds(Long.parseLong(options.getOrDefault("partition-window", quick ? "10" : "30")));
		List<Double> loadBefore = Machine.loadAverages();
		List<PartitionBenchmark.Point> points = new ArrayList<>();
		try (Database database = Database.prepare(settings)) {
			PartitionBenchmark benchmark = new PartitionBenchmark(settings, database,
					output.resolve("target/partitions-run"), settleTime, warmUp, window);
			for (int count : counts) {
				points.add(benchmark.run(count));
			}
		}
		List<Double> loadAfter = Machine.loadAverages();
		String section = PartitionReport.markdown(points, settings,
				commandAt(options, "bash benchmarks/run --partitions"), startedAt,
				Duration.ofNanos(System.nanoTime() - started), settleTime, warmUp, window,
				loadBefore + " at the start, " + loadAfter + " at the end");
		writeSection(output, PartitionReport.MARKS, section, "partition");
	}

	/**
	 * The load benchmark: the leader-mode systems under the fault suite's M2 load, one
	 * after the other ({@link SystemBenchmark#runUnderLoad}); then its section of
	 * {@code RESULTS.md} is replaced.
	 */
	private static void load(Map<String, String> options, RunSettings settings, List<SystemUnderTest> systems,
			Path output, Instant startedAt, long started) throws Exception {
		boolean quick = options.containsKey("quick");
		Duration baseline = Duration
			.ofSeconds(Long.parseLong(options.getOrDefault("load-baseline", quick ? "10" : "20")));
		Duration load = Duration.ofSeconds(Long.parseLong(options.getOrDefault("load-seconds", quick ? "20" : "60")));
		Duration tail = Duration.ofSeconds(Long.parseLong(options.getOrDefault("load-tail", quick ? "10" : "20")));
		List<Double> loadBefore = Machine.loadAverages();
		List<LoadOutcome> outcomes = new ArrayList<>();
		try (Database database = Database.prepare(settings)) {
			for (SystemUnderTest system : systems) {
				System.out.println("== " + system.label());
				outcomes
					.add(new SystemBenchmark(system, settings, database, output.resolve("target/load-run/logs"), true)
						.runUnderLoad(baseline, load, tail));
			}
		}
		List<Double> loadAfter = Machine.loadAverages();
		String section = LoadReport.markdown(outcomes, settings, commandAt(options, "bash benchmarks/run --load"),
				startedAt, Duration.ofNanos(System.nanoTime() - started),
				loadBefore + " at the start, " + loadAfter + " at the end");
		writeSection(output, LoadReport.MARKS, section, "load");
	}

	/**
	 * The migration bridge's check (issue #39): ShedLock's provider beside this
	 * starter's, with the bridge and then without it; then its section of
	 * {@code RESULTS.md} is replaced.
	 */
	private static void bridge(Map<String, String> options, RunSettings settings, Path output, Instant startedAt,
			long started) throws Exception {
		Duration window = Duration.ofSeconds(Long.parseLong(options.getOrDefault("bridge-seconds", "25")));
		List<Double> loadBefore = Machine.loadAverages();
		List<BridgeBenchmark.Outcome> outcomes = new ArrayList<>();
		try (Database database = Database.prepare(settings)) {
			BridgeBenchmark benchmark = new BridgeBenchmark(settings, database,
					output.resolve("target/bridge-run/logs"), window);
			outcomes.add(benchmark.run(true));
			outcomes.add(benchmark.run(false));
		}
		List<Double> loadAfter = Machine.loadAverages();
		String section = BridgeReport.markdown(outcomes, settings,
				MarkdownSection.measured(startedAt, "`" + commandAt(options, "bash benchmarks/run --bridge") + "`",
						Duration.ofNanos(System.nanoTime() - started),
						loadBefore + " at the start, " + loadAfter + " at the end"));
		writeSection(output, BridgeReport.MARKS, section, "bridge");
	}

	/**
	 * How the run was started, and at which commit, as the sections name it.
	 * @param options the options
	 * @param command the command if none was given
	 * @return the command, with {@code ` at `} and the revision where one was given
	 */
	private static String commandAt(Map<String, String> options, String command) {
		return options.getOrDefault("command", command)
				+ (options.containsKey("revision") ? "` at `" + options.get("revision") : "");
	}

	/**
	 * Replace one section of {@code RESULTS.md} (or add it), keeping the rest.
	 */
	private static void writeSection(Path output, MarkedSection marks, String section, String name) throws IOException {
		Files.createDirectories(output);
		Path report = output.resolve("RESULTS.md");
		String previous = Files.exists(report) ? Files.readString(report, StandardCharsets.UTF_8) : "";
		Files.writeString(report, marks.splice(previous, section), StandardCharsets.UTF_8);
		System.out.println(section);
		System.out.println("Wrote the " + name + " section of " + report);
	}

	private static Map<String, String> parse(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (int i = 0; i < args.length; i++) {
			if (!args[i].startsWith("--")) {
				throw new IllegalArgumentException("Unexpected argument '" + args[i] + "'");
			}
			String name = args[i].substring(2);
			if (List.of("quick", "skip-jmh", "no-wait", "scale", "locks", "partitions", "load", "bridge")
				.contains(name)) {
				options.put(name, "true");
			}
			else if (i + 1 < args.length) {
				options.put(name, args[++i]);
			}
			else {
				throw new IllegalArgumentException("Option --" + name + " needs a value");
			}
		}
		return options;
	}

	/**
	 * The versions that ran, read from the classpaths the applications ran with.
	 */
	private static Map<String, String> versions(Path benchmarks, Database database, String revision) throws Exception {
		String ours = Files.readString(benchmarks.resolve("app-ours/target/classpath.txt"));
		String shedLock = Files.readString(benchmarks.resolve("app-shedlock/target/classpath.txt"));
		String integration = Files.readString(benchmarks.resolve("app-integration/target/classpath.txt"));
		String jmh = Files.readString(benchmarks.resolve("microbenchmarks/target/classpath.txt"));
		Map<String, String> versions = new LinkedHashMap<>();
		versions.put("this starter", jarVersion(ours, "leader-election-autoconfigure").orElse("?")
				+ ((revision != null) ? " (commit " + revision + ")" : ""));
		versions.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
		versions.put("MariaDB", database.version());
		versions.put("Spring Boot (every application)", jarVersion(ours, "spring-boot").orElse("?")
				+ ", Spring Framework " + jarVersion(ours, "spring-core").orElse("?"));
		versions.put("ShedLock",
				"shedlock-spring " + jarVersion(shedLock, "shedlock-spring").orElse("?")
						+ ", shedlock-provider-jdbc-template "
						+ jarVersion(shedLock, "shedlock-provider-jdbc-template").orElse("?") + " on Spring Boot "
						+ jarVersion(shedLock, "spring-boot").orElse("?"));
		versions.put("Spring Integration",
				"spring-integration-jdbc " + jarVersion(integration, "spring-integration-jdbc").orElse("?")
						+ " on Spring Boot " + jarVersion(integration, "spring-boot").orElse("?") + " (Boot manages "
						+ "7.1.1, which Maven Central does not serve here; 7.0.5 is the newest release that resolves)");
		versions.put("JDBC driver", "MySQL Connector/J " + jarVersion(ours, "mysql-connector-j").orElse("?")
				+ ", HikariCP " + jarVersion(ours, "HikariCP").orElse("?"));
		versions.put("JMH", jarVersion(jmh, "jmh-core").orElse("?"));
		return versions;
	}

	private static Optional<String> jarVersion(String classpath, String artifact) {
		Matcher matcher = Pattern.compile("/" + Pattern.quote(artifact) + "-(\\d[^/]*?)\\.jar").matcher(classpath);
		return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
	}

}
