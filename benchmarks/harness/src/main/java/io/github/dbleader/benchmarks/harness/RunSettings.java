package io.github.dbleader.benchmarks.harness;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of one benchmark run, the same for every system.
 *
 * @param benchmarks the {@code benchmarks} directory (modules built, classpaths written)
 * @param jdbcUrl the MariaDB server, {@code jdbc:mysql://host:port}; the harness creates
 * the database {@value Database#NAME} and its users there
 * @param adminUser a user that may create databases and users and set {@code userstat}
 * @param adminPassword its password
 * @param lease lease L of every system (ShedLock's lockAtMostFor, Spring Integration's
 * lock time to live)
 * @param renewInterval renew interval R of this starter; Spring Integration's heart beat,
 * busy wait and pause between tries
 * @param jobInterval the job's period
 * @param jobDuration how long each job run works
 * @param nodes processes per system
 * @param trials trials per failover kind and system
 * @param pauseTrials trials of the pause scenario per system
 * @param steadyState length of the database-cost window
 * @param seed seed of the random delays before each fault
 * @param microbenchmarks whether to run JMH
 * @param waitForQuiet whether to wait for a quiet machine first
 */
record RunSettings(Path benchmarks, String jdbcUrl, String adminUser, String adminPassword, Duration lease,
		Duration renewInterval, Duration jobInterval, Duration jobDuration, int nodes, int trials, int pauseTrials,
		Duration steadyState, long seed, boolean microbenchmarks, boolean waitForQuiet) {

	/**
	 * Check what the systems cannot express.
	 */
	RunSettings {
		if (jobInterval.toMillis() % 1000 != 0 || jobInterval.isZero()) {
			throw new IllegalArgumentException("The job interval must be whole seconds (ShedLock's job is a cron)");
		}
	}

	/**
	 * @return ShedLock's cron: every node's scheduler fires on the same seconds
	 */
	String shedLockCron() {
		return "*/" + this.jobInterval.toSeconds() + " * * * * *";
	}

	/**
	 * @return ShedLock's lockAtLeastFor: half the job's period
	 */
	Duration lockAtLeastFor() {
		return this.jobInterval.dividedBy(2);
	}

	/**
	 * @return the {@code maxFor} of this starter's kept-alive lock in the long run: ten
	 * leases, far above a run of three
	 */
	Duration lockMaxFor() {
		return this.lease.multipliedBy(10);
	}

	/**
	 * @return how long the pause scenario freezes a node: two leases
	 */
	Duration pause() {
		return this.lease.multipliedBy(2);
	}

}
