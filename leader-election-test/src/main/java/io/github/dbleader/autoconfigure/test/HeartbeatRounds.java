package io.github.dbleader.autoconfigure.test;

import java.time.Duration;

import io.github.dbleader.election.LeadershipListener;

/**
 * Counts the heartbeat rounds whose callbacks were delivered, so that the test control
 * can wait until the election has acted on a change: the listener callbacks of a round
 * (and the application events they publish) are delivered, in order, before that round's
 * heartbeat callback.
 */
final class HeartbeatRounds implements LeadershipListener {

	private final Object monitor = new Object();

	private long delivered;

	@Override
	public void heartbeat(String nodeId, int elections, boolean succeeded, Duration duration) {
		synchronized (this.monitor) {
			this.delivered++;
			this.monitor.notifyAll();
		}
	}

	/**
	 * @return how many rounds were delivered so far
	 */
	long delivered() {
		synchronized (this.monitor) {
			return this.delivered;
		}
	}

	/**
	 * Wait until the given number of rounds were delivered.
	 * @param count the number of rounds delivered so far to wait for
	 * @param deadlineNanos when to give up ({@link System#nanoTime()})
	 * @return whether they were delivered in time
	 */
	boolean awaitDelivered(long count, long deadlineNanos) {
		synchronized (this.monitor) {
			while (this.delivered < count) {
				long left = deadlineNanos - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				try {
					this.monitor.wait(Math.max(1, left / 1_000_000));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return true;
		}
	}

}
