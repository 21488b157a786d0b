package io.github.dbleader.election.scoped;

import java.util.concurrent.TimeUnit;

import io.github.dbleader.election.RevocationReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One term of one {@link LeaderScopedService}: its {@link LeaderScopedService#start
 * start} on a platform thread of its own (Java 17 has no virtual threads), and its stop:
 * the signal, the service's own stop, an interrupt, then a wait for the thread until a
 * deadline.
 */
final class ScopedRun {

	private static final Logger logger = LoggerFactory.getLogger(ScopedRun.class);

	private final String name;

	private final LeaderScopedService service;

	private final LeadershipContext context;

	private final Thread thread;

	ScopedRun(String name, LeaderScopedService service, LeadershipContext context) {
		this.name = name;
		this.service = service;
		this.context = context;
		this.thread = new Thread(this::run, "leader-scoped-" + name + "-" + context.election());
		// A service that ignores its stop must not keep the JVM from exiting.
		this.thread.setDaemon(true);
	}

	long term() {
		return this.context.term();
	}

	void start() {
		logger.info("Leader-scoped service '{}' starting in {}", this.name, this.context);
		this.thread.start();
	}

	private void run() {
		try {
			this.service.start(this.context);
		}
		catch (Throwable ex) {
			if (this.context.isCancelled()) {
				// Thrown by the stop's signal or interrupt: how a service is expected to
				// end.
				logger.debug("Leader-scoped service '{}' in {} ended on its stop", this.name, this.context, ex);
			}
			else {
				logger.warn("Leader-scoped service '{}' failed in {}; it starts again at the next grant", this.name,
						this.context, ex);
			}
		}
	}

	/**
	 * Tell the service to stop: cancel its context, call its stop, interrupt its thread.
	 * Returns without waiting for the thread.
	 */
	void signal() {
		this.context.cancel();
		try {
			this.service.stop(this.context);
		}
		catch (RuntimeException ex) {
			logger.warn("Leader-scoped service '{}' failed to stop in {}", this.name, this.context, ex);
		}
		this.thread.interrupt();
	}

	/**
	 * Wait for the thread of the service's start to end, at most until the deadline.
	 * @param deadlineNanos when to give up, on {@link System#nanoTime()}
	 * @param reason why the service stops, for the log
	 * @return whether the thread ended
	 */
	boolean awaitStopped(long deadlineNanos, RevocationReason reason) {
		try {
			long left = deadlineNanos - System.nanoTime();
			if (left > 0) {
				TimeUnit.NANOSECONDS.timedJoin(this.thread, left);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (this.thread.isAlive()) {
			logger.warn("Leader-scoped service '{}' did not stop in {} ({}) in time: its thread '{}' is left running",
					this.name, this.context, reason, this.thread.getName());
			return false;
		}
		logger.info("Leader-scoped service '{}' stopped in {} ({})", this.name, this.context, reason);
		return true;
	}

}
