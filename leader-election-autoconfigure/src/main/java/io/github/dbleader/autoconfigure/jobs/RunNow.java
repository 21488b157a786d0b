package io.github.dbleader.autoconfigure.jobs;

import java.lang.reflect.InvocationTargetException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.dbleader.autoconfigure.endpoint.TimeBound;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint.Outcome;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint.RunDescriptor;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.aop.GuardedCall;
import io.github.dbleader.election.lock.LockNotHeldException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;

/**
 * Runs a job once, now, on a thread of its own, through the bean's proxy (so its guard
 * decides, and the run history, observations and metrics see the run as they see a
 * scheduled one), and waits for it at most a timeout, the bound of every endpoint's
 * writes ({@link TimeBound}): a run that takes longer goes on and is answered
 * {@code RUNNING} with its term and start. One run per job at a time: another request for
 * a job whose run is under way is answered {@code ALREADY_RUNNING}, so repeated requests
 * never pile up threads.
 */
final class RunNow implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RunNow.class);

	private final BeanFactory beanFactory;

	private final String nodeId;

	private final MonotonicClock clock;

	private final Clock wallClock;

	private final Map<String, Run> running = new ConcurrentHashMap<>();

	/** A thread per run, and one run per job at a time: as many as the jobs at most. */
	private final TimeBound bound;

	RunNow(BeanFactory beanFactory, String nodeId, Duration timeout, MonotonicClock clock, Clock wallClock) {
		this.beanFactory = beanFactory;
		this.nodeId = nodeId;
		this.clock = clock;
		this.wallClock = wallClock;
		this.bound = new TimeBound("leader-election-run-now", Integer.MAX_VALUE, 0, timeout);
	}

	/**
	 * The run of a job that this endpoint started and that is under way, if any.
	 * @param job the job
	 * @return the run, {@code ALREADY_RUNNING}, or {@code null} if none is under way
	 */
	@Nullable RunDescriptor underWay(Job job) {
		Run run = this.running.get(job.name());
		return (run != null) ? alreadyRunning(run) : null;
	}

	private static RunDescriptor alreadyRunning(Run run) {
		return run.describe(Outcome.ALREADY_RUNNING,
				"a run of job '" + run.job.name() + "' that this endpoint started on this node is under way");
	}

	/**
	 * Run a job now and wait for it at most the timeout.
	 * @param job the job
	 * @return what became of the run
	 */
	RunDescriptor run(Job job) {
		Run run = new Run(job);
		Run earlier = this.running.putIfAbsent(job.name(), run);
		if (earlier != null) {
			return alreadyRunning(earlier);
		}
		logger.info("Running job '" + job.name() + "' now, as an operator asked");
		CompletableFuture<Object> started = this.bound.start(() -> {
			carryOut(run);
			return run;
		});
		if (started.isCompletedExceptionally()) {
			// Refused a thread: the endpoint is closing.
			this.running.remove(job.name(), run);
			started.join();
		}
		long timeout = this.bound.timeout().toMillis();
		return this.bound.within(run.ended)
			.orElseGet(() -> run.describe(Outcome.RUNNING,
					(run.term >= 0) ? "still running after " + timeout + " ms; the run goes on"
							: "its guard has not decided within " + timeout + " ms; the call goes on"));
	}

	private void carryOut(Run run) {
		Job job = run.job;
		RunDescriptor ended;
		try {
			Object bean = this.beanFactory.getBean(job.beanName());
			GuardedCall.call(run, () -> job.invocable().invoke(bean));
			if (run.skipReason != null) {
				ended = run.describe((job.kind() == Job.Kind.CLUSTER_LOCK) ? Outcome.LOCK_HELD : Outcome.SKIPPED,
						run.skipReason);
			}
			else if (run.term < 0) {
				ended = run.describe(Outcome.FAILED, "the call did not go through the job's guard");
			}
			else {
				ended = run.describe(Outcome.COMPLETED, null);
			}
		}
		catch (Throwable ex) {
			Throwable cause = (ex instanceof InvocationTargetException invocation && invocation.getCause() != null)
					? invocation.getCause() : ex;
			ended = run.describe(refusedByFence(cause) ? Outcome.REFUSED_BY_FENCE : Outcome.FAILED,
					cause.getClass().getName() + ": " + cause.getMessage());
		}
		finally {
			this.running.remove(job.name(), run);
		}
		logger.info("Job '" + job.name() + "' run now ended " + ended.outcome()
				+ ((ended.reason() != null) ? ": " + ended.reason() : ""));
		run.ended.complete(ended);
	}

	/** A refusal of the fence, of an election or a lock, itself or as a cause. */
	private static boolean refusedByFence(Throwable ex) {
		Throwable cause = ex;
		for (int depth = 0; cause != null && depth < 16; depth++) {
			if (cause instanceof NotLeaderException || cause instanceof LockNotHeldException) {
				return true;
			}
			cause = cause.getCause();
		}
		return false;
	}

	@Override
	public void close() {
		this.bound.close();
	}

	/**
	 * One run, as its guard and its end tell it.
	 */
	private final class Run implements GuardedCall.Listener {

		private final Job job;

		private final CompletableFuture<RunDescriptor> ended = new CompletableFuture<>();

		private volatile long term = -1;

		private volatile @Nullable Instant startedAt;

		private volatile long startedNanos;

		private volatile @Nullable String skipReason;

		Run(Job job) {
			this.job = job;
		}

		@Override
		public void started(long term) {
			// startedAt last: a reader that sees it sees the term and the start too.
			this.term = term;
			this.startedNanos = RunNow.this.clock.nanoTime();
			this.startedAt = RunNow.this.wallClock.instant();
		}

		@Override
		public void skipped(String reason) {
			this.skipReason = reason;
		}

		RunDescriptor describe(Outcome outcome, @Nullable String reason) {
			Instant started = this.startedAt;
			Duration duration = (started != null)
					? Duration.ofNanos(RunNow.this.clock.nanoTime() - this.startedNanos).truncatedTo(ChronoUnit.MILLIS)
					: null;
			return new RunDescriptor(this.job.name(), RunNow.this.nodeId, outcome, (started != null) ? this.term : null,
					started, duration, null, reason);
		}

	}

}
