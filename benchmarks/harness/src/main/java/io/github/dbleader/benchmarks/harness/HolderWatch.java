package io.github.dbleader.benchmarks.harness;

import java.sql.SQLException;
import java.util.Map;

import io.github.dbleader.benchmarks.harness.Database.Holder;

/**
 * Polls who holds a system's leadership every 200 ms on a thread of its own
 * ({@link Database#holders}): counts the changes of holder (another node, or another term
 * of the same node). ShedLock has no standing holder: nothing is polled and the changes
 * are {@code -1}.
 */
final class HolderWatch {

	private static final long POLL_MILLIS = 200;

	private final Database database;

	private final SystemUnderTest system;

	private final Thread thread;

	private volatile boolean watching = true;

	private Holder last;

	private int changes;

	private SQLException failure;

	HolderWatch(Database database, SystemUnderTest system) {
		this.database = database;
		this.system = system;
		this.thread = new Thread(this::watch, "holder-watch");
		this.thread.setDaemon(true);
	}

	void start() {
		if (hasHolder()) {
			this.thread.start();
		}
	}

	/** Stop polling and wait for the thread. */
	void stop() throws InterruptedException {
		this.watching = false;
		if (this.thread.isAlive()) {
			this.thread.join();
		}
		if (this.failure != null) {
			throw new IllegalStateException("Polling the holder failed", this.failure);
		}
	}

	/**
	 * @return changes of holder seen, or -1 for a system without a standing holder
	 */
	int changes() {
		return hasHolder() ? this.changes : -1;
	}

	private boolean hasHolder() {
		return this.system == SystemUnderTest.OURS || this.system == SystemUnderTest.INTEGRATION;
	}

	private void watch() {
		try {
			while (this.watching) {
				long started = System.nanoTime();
				Map<String, Holder> holders = this.database.holders(this.system);
				for (Holder holder : holders.values()) {
					if (this.last != null
							&& (!this.last.holder().equals(holder.holder()) || this.last.term() != holder.term())) {
						this.changes++;
					}
					this.last = holder;
				}
				Thread.sleep(Math.max(0, POLL_MILLIS - (System.nanoTime() - started) / 1_000_000));
			}
		}
		catch (SQLException ex) {
			this.failure = ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
