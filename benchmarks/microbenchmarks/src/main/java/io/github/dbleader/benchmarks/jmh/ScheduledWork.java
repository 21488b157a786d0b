package io.github.dbleader.benchmarks.jmh;

import io.github.dbleader.election.aop.LeaderOnly;

/**
 * The advised bean: a {@code @LeaderOnly} method as small as a method can be, so that the
 * benchmark measures the call and its check, not the work.
 */
public class ScheduledWork {

	private long runs;

	/**
	 * Count one run.
	 * @return the runs so far; 0 when a follower skipped the call
	 */
	@LeaderOnly
	public long run() {
		return ++this.runs;
	}

}
