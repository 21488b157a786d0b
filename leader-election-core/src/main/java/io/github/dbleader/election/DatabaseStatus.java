package io.github.dbleader.election;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node's heartbeat reaches the database, shared by all of its elections, and
 * why not: one log line when it starts failing, one when the kind of failure changes
 * ({@link DatabaseFailureKind}) and one when a round succeeds whole again, not one per
 * election or attempt.
 */
final class DatabaseStatus {

	private static final Logger logger = LoggerFactory.getLogger(DatabaseStatus.class);

	private final String nodeId;

	private final MonotonicClock clock;

	private final long beliefNanos;

	/** The current stretch of failure, or {@code null} while the heartbeat succeeds. */
	private volatile @Nullable Failing failing;

	/** Whether the database has not been prepared yet and the last attempt failed. */
	private volatile boolean waiting;

	private volatile long lastSuccessNanos;

	/** Whether a heartbeat is in progress, and since when ({@link System#nanoTime()}). */
	private volatile boolean ticking;

	private volatile long tickStartedNanos;

	/** Whether a statement of the current round answered, and whether one failed. */
	private volatile boolean roundAnswered;

	private volatile boolean roundFailed;

	/** Failed rounds by {@link DatabaseFailureKind#ordinal()} of their first failure. */
	private final AtomicLongArray failedRounds = new AtomicLongArray(DatabaseFailureKind.values().length);

	DatabaseStatus(String nodeId, ElectionSettings settings, MonotonicClock clock) {
		this.nodeId = nodeId;
		this.clock = clock;
		this.beliefNanos = settings.leaseDuration().minus(settings.guard()).toNanos();
		this.lastSuccessNanos = clock.nanoTime();
	}

	/**
	 * Whether the database answered within the belief window; {@code false} once it has
	 * not answered any statement of the heartbeat for longer than {@code lease - guard}
	 * (whatever the kind of failure: a statement refused for want of a privilege renews
	 * nothing either), or once a heartbeat has been stuck in a call for that long (a
	 * driver that cannot time out its socket), so that health shows it even when the
	 * heartbeat thread hangs (I7).
	 * @return {@code true} if reachable
	 */
	boolean reachable() {
		if (this.waiting) {
			return false;
		}
		if (this.ticking && System.nanoTime() - this.tickStartedNanos >= this.beliefNanos) {
			return false;
		}
		return this.failing == null || this.clock.nanoTime() - this.lastSuccessNanos < this.beliefNanos;
	}

	/**
	 * How long the heartbeat has been failing.
	 * @return the time since the first failure of the current stretch, or {@code null} if
	 * the last round succeeded
	 */
	@Nullable Duration unreachableFor() {
		Failing current = this.failing;
		return (current != null) ? Duration.ofNanos(this.clock.nanoTime() - current.sinceNanos()) : null;
	}

	/**
	 * Why the heartbeat fails.
	 * @return the kind and cause of the last failure and how long the heartbeat has
	 * failed, or {@code null} if the last round succeeded
	 */
	@Nullable HeartbeatFailure failure() {
		Failing current = this.failing;
		if (current == null) {
			return null;
		}
		long failingNanos = this.clock.nanoTime() - current.sinceNanos();
		return new HeartbeatFailure(current.kind(), current.cause(), Duration.ofNanos(failingNanos),
				failingNanos >= this.beliefNanos);
	}

	/**
	 * How many heartbeat rounds failed, counted by the kind of their first failed
	 * statement. The attempts to prepare the database before the first round are not
	 * rounds.
	 * @param kind the kind
	 * @return the rounds that failed with it since the node started
	 */
	long failedRounds(DatabaseFailureKind kind) {
		return this.failedRounds.get(kind.ordinal());
	}

	/**
	 * Whether the node waits for the database to answer before it joins any election: the
	 * {@link DatabasePreparation} failed and has not succeeded since.
	 * @return {@code true} while waiting
	 */
	boolean waiting() {
		return this.waiting;
	}

	/**
	 * The {@link DatabasePreparation} failed: the node waits for the database.
	 * @param ex the failure
	 */
	void preparationFailed(RuntimeException ex) {
		Failing previous = this.failing;
		Failing current = failingWith(previous, ex);
		if (!this.waiting || previous == null || previous.kind() != current.kind()) {
			this.waiting = true;
			logger.warn("Node '{}': waiting for the database before joining any election ({}), trying again every "
					+ "renew interval: {}", this.nodeId, current.kind().description(), current.cause());
		}
		else {
			logger.debug("Node '{}': database still not ready", this.nodeId, ex);
		}
	}

	/** The {@link DatabasePreparation} succeeded: the node joins its elections. */
	void prepared() {
		this.lastSuccessNanos = this.clock.nanoTime();
		if (this.waiting) {
			this.waiting = false;
			this.failing = null;
			logger.info("Node '{}': database ready, joining elections", this.nodeId);
		}
	}

	/**
	 * @return whether the heartbeat fails: a round failed and none succeeded since
	 */
	boolean failing() {
		return this.failing != null;
	}

	/**
	 * A heartbeat round starts.
	 * @param startedNanos {@link System#nanoTime()} at its start; not the injected clock,
	 * whose readings a test controls
	 */
	void roundStarted(long startedNanos) {
		this.tickStartedNanos = startedNanos;
		this.roundAnswered = false;
		this.roundFailed = false;
		this.ticking = true;
	}

	/**
	 * The heartbeat round ended. The heartbeat fails until a round succeeds whole: a
	 * round whose read answers and whose change of holder fails again and again (a
	 * deadlock every round) is one stretch of failure, not a recovery and a failure every
	 * round.
	 */
	void roundEnded() {
		this.ticking = false;
		Failing current = this.failing;
		if (current != null && this.roundAnswered && !this.roundFailed && !this.waiting) {
			this.failing = null;
			if (current.outage()) {
				logger.info("Node '{}': database reachable again", this.nodeId);
			}
			else {
				logger.info("Node '{}': heartbeat succeeding again", this.nodeId);
			}
		}
	}

	/** The database answered a statement of the round. */
	void answered() {
		this.lastSuccessNanos = this.clock.nanoTime();
		this.roundAnswered = true;
	}

	/**
	 * A statement of the heartbeat failed. Logged at WARN when the heartbeat starts
	 * failing and when the kind of failure changes, at DEBUG while it stays the same.
	 * @param ex the failure
	 */
	void failed(RuntimeException ex) {
		Failing previous = this.failing;
		Failing current = failingWith(previous, ex);
		if (!this.roundFailed) {
			this.roundFailed = true;
			this.failedRounds.incrementAndGet(current.kind().ordinal());
		}
		if (previous != null && previous.kind() == current.kind()) {
			logger.debug("Node '{}': heartbeat still failing ({})", this.nodeId, current.kind().description(), ex);
		}
		else if (current.kind().databaseUnreachable()) {
			logger.warn("Node '{}': database unreachable{}, leadership ends at the latest when the leases would: {}",
					this.nodeId, (current.kind() == DatabaseFailureKind.TIMED_OUT) ? " (statement timed out)" : "",
					current.cause());
		}
		else {
			logger.warn("Node '{}': heartbeat failing ({}): {}", this.nodeId, current.kind().description(),
					current.cause());
		}
	}

	/** Record a failure in the current stretch, or start one. */
	private Failing failingWith(@Nullable Failing previous, RuntimeException ex) {
		DatabaseFailureKind kind = DatabaseFailureKind.of(ex);
		Failing current = (previous != null)
				? new Failing(kind, causeOf(ex), previous.sinceNanos(), previous.outage() || kind.databaseUnreachable())
				: new Failing(kind, causeOf(ex), this.clock.nanoTime(), kind.databaseUnreachable());
		this.failing = current;
		return current;
	}

	/**
	 * The failure and, where its text does not say it, its root cause: Spring's
	 * translated exceptions name the statement, the driver's the server's reason.
	 */
	static String causeOf(Throwable ex) {
		Throwable root = ex;
		for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 32; depth++) {
			root = root.getCause();
		}
		String text = ex.toString();
		if (root != ex && (root.getMessage() == null || !text.contains(root.getMessage()))) {
			text += "; root cause: " + root;
		}
		return text;
	}

	/**
	 * A stretch of failure of the heartbeat.
	 *
	 * @param kind the kind of its last failure
	 * @param cause its last failure, as logged
	 * @param sinceNanos when it started (the injected clock)
	 * @param outage whether the database did not answer at some time in it
	 */
	private record Failing(DatabaseFailureKind kind, String cause, long sinceNanos, boolean outage) {
	}

}
