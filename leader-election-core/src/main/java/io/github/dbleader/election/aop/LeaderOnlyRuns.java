package io.github.dbleader.election.aop;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.NotLeaderException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of {@link LeaderOnly @LeaderOnly} methods on this node, per election: the
 * runs under way and the last calls that ended (completed, failed, refused by the fence,
 * skipped), newest first, for people and alerts to see. Bounded: an election keeps its
 * last {@code historySize} ended calls. Calls of a method skipped one after the other are
 * one entry, the first of them: a follower's history is not a list of the same skip, and
 * a skip costs no more than a look at the newest entry.
 *
 * <p>
 * A run can have a bound, its {@code maxRunTime}: once it has run longer (on the
 * monotonic clock), it is among {@link #runsPastMaxRunTime(String)}, the hung job whose
 * node still looks a healthy leader (the heartbeat renews the lease on threads of its
 * own). A run can also ask to be interrupted when this node loses the leadership of the
 * term it started under ({@link LeaderOnly#interruptOnLoss()}), as a kept-alive cluster
 * lock's run can. A thread of this class's own, started with the first run that has a
 * bound or asks for the interrupt, looks at those runs every check interval (the renew
 * interval): it logs a run past its bound once, and interrupts a run whose leadership
 * ended. {@link #close()} stops it.
 */
public class LeaderOnlyRuns implements AutoCloseable {

	/** Ended calls kept per election unless configured otherwise. */
	public static final int DEFAULT_HISTORY_SIZE = 20;

	private static final Logger logger = LoggerFactory.getLogger(LeaderOnlyRuns.class);

	private final int historySize;

	private final @Nullable Duration defaultMaxRunTime;

	private final Duration checkInterval;

	private final MonotonicClock clock;

	private final Clock wallClock;

	private final List<LeaderOnlyRunListener> listeners;

	private final Set<Running> running = ConcurrentHashMap.newKeySet();

	private final Map<String, History> histories = new ConcurrentHashMap<>();

	private volatile @Nullable ScheduledExecutorService checks;

	private boolean closed;

	/**
	 * Create a history of {@value #DEFAULT_HISTORY_SIZE} calls per election, without a
	 * default bound, that checks every default renew interval.
	 */
	public LeaderOnlyRuns() {
		this(DEFAULT_HISTORY_SIZE, null, ElectionSettings.defaults().renewInterval(), MonotonicClock.SYSTEM,
				Clock.systemUTC(), List.of());
	}

	/**
	 * Create a history.
	 * @param historySize how many ended calls to keep per election; 0 for none
	 * @param defaultMaxRunTime the bound of the runs of methods that set none, or
	 * {@code null} for none
	 * @param checkInterval how often to look for runs past their bound or whose
	 * leadership ended (typically the renew interval)
	 * @param clock the monotonic clock, for every decision
	 * @param wallClock the clock of the recorded times, for people to read
	 * @param listeners told of each run that ended, in order; one that fails neither
	 * keeps the others from being told nor fails the run
	 */
	public LeaderOnlyRuns(int historySize, @Nullable Duration defaultMaxRunTime, Duration checkInterval,
			MonotonicClock clock, Clock wallClock, List<LeaderOnlyRunListener> listeners) {
		if (historySize < 0) {
			throw new IllegalArgumentException("historySize must not be negative, was " + historySize);
		}
		if (defaultMaxRunTime != null && (defaultMaxRunTime.isNegative() || defaultMaxRunTime.isZero())) {
			throw new IllegalArgumentException("defaultMaxRunTime must be positive, was " + defaultMaxRunTime);
		}
		Objects.requireNonNull(checkInterval, "checkInterval must not be null");
		if (checkInterval.isNegative() || checkInterval.isZero()) {
			throw new IllegalArgumentException("checkInterval must be positive, was " + checkInterval);
		}
		this.historySize = historySize;
		this.defaultMaxRunTime = defaultMaxRunTime;
		this.checkInterval = checkInterval;
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.wallClock = Objects.requireNonNull(wallClock, "wallClock must not be null");
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Run a method that this node may run, and record the run.
	 * @param settings the method's settings
	 * @param nodeId this node
	 * @param term the term this node leads with
	 * @param currentTerm this node's term now, -1 once it no longer leads
	 * @param work the method
	 * @return what the method returned
	 * @throws Throwable what it threw
	 */
	@Nullable Object run(LeaderOnlyInterceptor.Settings settings, String nodeId, long term, LongSupplier currentTerm, Work work)
			throws Throwable {
		Duration maxRunTime = (settings.maxRunTime() != null) ? settings.maxRunTime() : this.defaultMaxRunTime;
		Running run = new Running(
				new LeaderOnlyRun(settings.election(), nodeId, term, settings.method(), this.wallClock.instant(), null,
						LeaderOnlyRun.Outcome.RUNNING, maxRunTime),
				this.clock.nanoTime(), settings.interruptOnLoss() ? Thread.currentThread() : null, currentTerm);
		this.running.add(run);
		if (maxRunTime != null || settings.interruptOnLoss()) {
			startChecks();
		}
		LeaderOnlyRun.Outcome outcome = LeaderOnlyRun.Outcome.FAILED;
		try {
			Object result = work.run();
			outcome = LeaderOnlyRun.Outcome.COMPLETED;
			return result;
		}
		catch (Throwable ex) {
			if (refusedByFence(ex)) {
				outcome = LeaderOnlyRun.Outcome.REFUSED_BY_FENCE;
			}
			throw ex;
		}
		finally {
			end(run, outcome);
		}
	}

	/**
	 * Record a call that was skipped because this node did not lead.
	 * @param settings the method's settings
	 * @param nodeId this node
	 */
	void skipped(LeaderOnlyInterceptor.Settings settings, String nodeId) {
		if (this.historySize == 0) {
			return;
		}
		History history = history(settings.election());
		// The hot path of a follower: one volatile read, no lock. The interceptor keeps
		// one settings object per method, so identity tells the method.
		if (history.skipping != settings) {
			Instant now = this.wallClock.instant();
			history.keep(new LeaderOnlyRun(settings.election(), nodeId, -1, settings.method(), now, now,
					LeaderOnlyRun.Outcome.SKIPPED, null), settings, this.historySize);
		}
	}

	/**
	 * The calls of an election's {@code @LeaderOnly} methods on this node: the runs under
	 * way, then the last calls that ended, newest first.
	 * @param election the election's name
	 * @return the calls
	 */
	public List<LeaderOnlyRun> recentRuns(String election) {
		List<LeaderOnlyRun> runs = new ArrayList<>();
		this.running.stream()
			.map(Running::run)
			.filter((run) -> run.election().equals(election))
			.sorted(Comparator.comparing(LeaderOnlyRun::startedAt).reversed())
			.forEach(runs::add);
		History history = this.histories.get(election);
		if (history != null) {
			history.addTo(runs);
		}
		return runs;
	}

	/**
	 * The runs of an election's {@code @LeaderOnly} methods on this node that still run
	 * although their {@code maxRunTime} has passed on this node's monotonic clock.
	 * @param election the election's name
	 * @return the runs, oldest first
	 */
	public List<LeaderOnlyRun> runsPastMaxRunTime(String election) {
		long now = this.clock.nanoTime();
		return this.running.stream()
			.filter((run) -> run.run().election().equals(election) && run.isPastMaxRunTime(now))
			.map(Running::run)
			.sorted(Comparator.comparing(LeaderOnlyRun::startedAt))
			.toList();
	}

	/** Stop the checks; the runs are still recorded. */
	@Override
	public synchronized void close() {
		this.closed = true;
		ScheduledExecutorService checks = this.checks;
		if (checks != null) {
			checks.shutdownNow();
			this.checks = null;
		}
	}

	/**
	 * One check: log the runs that have just passed their bound, interrupt those that
	 * asked for it and whose leadership ended.
	 */
	void check() {
		long now = this.clock.nanoTime();
		for (Running run : this.running) {
			if (run.isPastMaxRunTime(now) && !run.reportedPastMaxRunTime) {
				run.reportedPastMaxRunTime = true;
				logger.warn(describe(run.run()) + " has run for longer than its maxRunTime (" + run.run().maxRunTime()
						+ ") and goes on");
			}
			if (run.thread != null && run.currentTerm.getAsLong() != run.run().term()) {
				run.interrupt();
			}
		}
	}

	private void checkQuietly() {
		try {
			check();
		}
		catch (RuntimeException ex) {
			logger.error("Check of the @LeaderOnly runs failed", ex);
		}
	}

	private void startChecks() {
		if (this.checks != null) {
			return;
		}
		synchronized (this) {
			if (this.checks == null && !this.closed) {
				ScheduledExecutorService checks = Executors.newSingleThreadScheduledExecutor((task) -> {
					Thread thread = new Thread(task, "leader-only-runs");
					thread.setDaemon(true);
					return thread;
				});
				long nanos = this.checkInterval.toNanos();
				checks.scheduleWithFixedDelay(this::checkQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
				this.checks = checks;
			}
		}
	}

	private void end(Running run, LeaderOnlyRun.Outcome outcome) {
		boolean interrupted = run.end();
		this.running.remove(run);
		LeaderOnlyRun started = run.run();
		LeaderOnlyRun ended = new LeaderOnlyRun(started.election(), started.nodeId(), started.term(), started.method(),
				started.startedAt(), this.wallClock.instant(), outcome, started.maxRunTime());
		if (this.historySize > 0) {
			history(ended.election()).keep(ended, null, this.historySize);
		}
		Duration duration = Duration.ofNanos(this.clock.nanoTime() - run.startedNanos);
		if (run.reportedPastMaxRunTime || interrupted) {
			logger.info(describe(ended) + " ended " + outcome + " after " + duration
					+ (interrupted ? ", interrupted when the leadership was lost" : ", past its maxRunTime"));
		}
		for (LeaderOnlyRunListener listener : this.listeners) {
			try {
				listener.runEnded(ended, duration);
			}
			catch (RuntimeException ex) {
				logger.warn("Listener " + listener + " of @LeaderOnly runs failed", ex);
			}
		}
	}

	private History history(String election) {
		History history = this.histories.get(election);
		return (history != null) ? history : this.histories.computeIfAbsent(election, (name) -> new History());
	}

	/**
	 * Whether a run's exception says the fence refused it: a {@link NotLeaderException},
	 * itself or as a cause, as the run history and the observations both count it.
	 */
	static boolean refusedByFence(Throwable ex) {
		// A cause chain is finite, but may loop back on itself.
		Throwable cause = ex;
		for (int depth = 0; cause != null && depth < 16; depth++) {
			if (cause instanceof NotLeaderException) {
				return true;
			}
			cause = cause.getCause();
		}
		return false;
	}

	private static String describe(LeaderOnlyRun run) {
		return "@LeaderOnly run of " + run.method() + "() (election '" + run.election() + "', term " + run.term() + ")";
	}

	/**
	 * The method, as the interceptor calls it.
	 */
	@FunctionalInterface
	interface Work {

		@Nullable Object run() throws Throwable;

	}

	/**
	 * The ended calls of an election, newest first.
	 */
	private static final class History {

		private final Deque<LeaderOnlyRun> runs = new ArrayDeque<>();

		/** The method whose skip is the newest entry, or {@code null}. */
		private volatile LeaderOnlyInterceptor.@Nullable Settings skipping;

		synchronized void keep(LeaderOnlyRun run, LeaderOnlyInterceptor.@Nullable Settings skipping, int size) {
			this.runs.addFirst(run);
			while (this.runs.size() > size) {
				this.runs.removeLast();
			}
			this.skipping = skipping;
		}

		synchronized void addTo(List<LeaderOnlyRun> runs) {
			runs.addAll(this.runs);
		}

	}

	/**
	 * A run under way.
	 */
	private static final class Running {

		private final LeaderOnlyRun run;

		private final long startedNanos;

		/**
		 * The thread to interrupt on loss, or {@code null} if the run did not ask for it.
		 */
		private final @Nullable Thread thread;

		private final LongSupplier currentTerm;

		private volatile boolean reportedPastMaxRunTime;

		private boolean ended;

		private boolean interrupted;

		Running(LeaderOnlyRun run, long startedNanos, @Nullable Thread thread, LongSupplier currentTerm) {
			this.run = run;
			this.startedNanos = startedNanos;
			this.thread = thread;
			this.currentTerm = currentTerm;
		}

		LeaderOnlyRun run() {
			return this.run;
		}

		boolean isPastMaxRunTime(long now) {
			Duration maxRunTime = this.run.maxRunTime();
			return maxRunTime != null && now - this.startedNanos - maxRunTime.toNanos() > 0;
		}

		/** Interrupt the run's thread, once, unless the run has ended. */
		void interrupt() {
			synchronized (this) {
				if (this.ended || this.interrupted || this.thread == null) {
					return;
				}
				this.interrupted = true;
				logger.info(describe(this.run) + ": this node no longer leads with that term; interrupting the run"
						+ " (interruptOnLoss)");
				this.thread.interrupt();
			}
		}

		/**
		 * End the run, on its own thread: an interrupt this class sent is for the run
		 * only, so that the thread's next task does not inherit it.
		 * @return whether the run was interrupted
		 */
		synchronized boolean end() {
			this.ended = true;
			if (this.interrupted) {
				Thread.interrupted();
			}
			return this.interrupted;
		}

	}

}
