package io.github.dbleader.election.lock;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;

/**
 * The locks whose tries fail at the database. A failed try skips its run as a lock held
 * elsewhere would, so without this a database that refuses every try would leave a job
 * silently never running: each lock says so at WARN when its tries start failing and at
 * INFO when one reaches the database again, and at DEBUG for the failures in between,
 * which a job tried every second would otherwise repeat every second.
 */
final class FailingTries {

	private final Set<String> failing = ConcurrentHashMap.newKeySet();

	private final Logger logger;

	FailingTries(Logger logger) {
		this.logger = logger;
	}

	/**
	 * A try of a lock failed at the database: its run is skipped.
	 * @param name the lock's name
	 * @param what what failed, for the log
	 * @param ex the failure
	 */
	void failed(String name, String what, RuntimeException ex) {
		if (this.failing.add(name)) {
			this.logger.warn("Lock '" + name + "': could not " + what + "; the run is skipped, and so is every run"
					+ " whose try fails until one reaches the database (further failures at DEBUG): " + ex);
		}
		else {
			this.logger.debug("Lock '" + name + "': could not " + what + " again; the run is skipped: " + ex);
		}
	}

	/**
	 * A try of a lock reached the database, whatever its answer.
	 * @param name the lock's name
	 */
	void reached(String name) {
		if (!this.failing.isEmpty() && this.failing.remove(name)) {
			this.logger.info("Lock '" + name + "': tries reach the database again");
		}
	}

}
