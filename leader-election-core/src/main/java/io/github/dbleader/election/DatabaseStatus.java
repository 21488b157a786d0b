package io.github.dbleader.election;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node's heartbeat reaches the database, shared by all of its elections: one
 * log line when it stops reaching it and one when it reaches it again, not one per
 * election or attempt.
 */
final class DatabaseStatus {

	private static final Logger logger = LoggerFactory.getLogger(DatabaseStatus.class);

	private final String nodeId;

	private final MonotonicClock clock;

	private final long beliefNanos;

	private volatile boolean failing;

	/** Whether the database has not been prepared yet and the last attempt failed. */
	private volatile boolean waiting;

	private volatile long lastSuccessNanos;

	private volatile long failingSinceNanos;

	/** Whether a heartbeat is in progress, and since when ({@link System#nanoTime()}). */
	private volatile boolean ticking;

	private volatile long tickStartedNanos;

	DatabaseStatus(String nodeId, ElectionSettings settings, MonotonicClock clock) {
		this.nodeId = nodeId;
		this.clock = clock;
		this.beliefNanos = settings.leaseDuration().minus(settings.guard()).toNanos();
		this.lastSuccessNanos = clock.nanoTime();
	}

	/**
	 * Whether the database answered within the belief window; {@code false} once it has been
	 * unreachable for longer than {@code lease - guard}, or once a heartbeat has been stuck in
	 * a call for that long (a driver that cannot time out its socket), so that health shows
	 * it even when the heartbeat thread hangs (I7).
	 * @return {@code true} if reachable
	 */
	boolean reachable() {
		if (this.waiting) {
			return false;
		}
		if (this.ticking && System.nanoTime() - this.tickStartedNanos >= this.beliefNanos) {
			return false;
		}
		return !this.failing || this.clock.nanoTime() - this.lastSuccessNanos < this.beliefNanos;
	}

	/**
	 * How long the heartbeat has been failing to reach the database.
	 * @return the time since the first failure of the current outage, or {@code null} if
	 * the last statement succeeded
	 */
	@Nullable Duration unreachableFor() {
		return this.failing ? Duration.ofNanos(this.clock.nanoTime() - this.failingSinceNanos) : null;
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
		if (!this.waiting) {
			this.failingSinceNanos = this.clock.nanoTime();
			this.failing = true;
			this.waiting = true;
			logger.warn("Node '{}': waiting for the database before joining any election, trying again every "
					+ "renew interval: {}", this.nodeId, ex.toString());
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
			this.failing = false;
			logger.info("Node '{}': database ready, joining elections", this.nodeId);
		}
	}

	/** @return whether the last statement of the heartbeat failed */
	boolean failing() {
		return this.failing;
	}

	/**
	 * A heartbeat round starts.
	 * @param startedNanos {@link System#nanoTime()} at its start; not the injected clock,
	 * whose readings a test controls
	 */
	void roundStarted(long startedNanos) {
		this.tickStartedNanos = startedNanos;
		this.ticking = true;
	}

	/** The heartbeat round ended. */
	void roundEnded() {
		this.ticking = false;
	}

	/** The database answered every statement of the round so far. */
	void answered() {
		this.lastSuccessNanos = this.clock.nanoTime();
		if (this.failing) {
			this.failing = false;
			logger.info("Node '{}': database reachable again", this.nodeId);
		}
	}

	/**
	 * A statement of the heartbeat failed.
	 * @param ex the failure
	 */
	void failed(RuntimeException ex) {
		if (!this.failing) {
			this.failingSinceNanos = this.clock.nanoTime();
			this.failing = true;
			logger.warn("Node '{}': database unreachable, leadership ends at the latest when the leases would: {}",
					this.nodeId, ex.toString());
		}
		else {
			logger.debug("Node '{}': database still unreachable", this.nodeId, ex);
		}
	}

}
