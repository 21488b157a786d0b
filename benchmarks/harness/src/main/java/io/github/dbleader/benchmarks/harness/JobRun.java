package io.github.dbleader.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;

/**
 * One job run as recorded by a benchmark application; times are the database clock's.
 *
 * @param nodeId the node that ran it
 * @param term the fencing token it ran under, or 0 where the system has none
 * @param startedAt start, epoch milliseconds
 * @param finishedAt end (the insert), epoch milliseconds
 */
record JobRun(String nodeId, long term, long startedAt, long finishedAt) {

	/**
	 * Every pair of runs of different nodes whose intervals intersect: the job ran on two
	 * nodes at once.
	 * @param runs runs ordered by start
	 * @return the overlapping pairs
	 */
	static List<Overlap> overlaps(List<JobRun> runs) {
		List<Overlap> overlaps = new ArrayList<>();
		for (int i = 0; i < runs.size(); i++) {
			JobRun first = runs.get(i);
			for (int j = i + 1; j < runs.size() && runs.get(j).startedAt() < first.finishedAt(); j++) {
				JobRun second = runs.get(j);
				if (!first.nodeId().equals(second.nodeId())) {
					overlaps.add(new Overlap(first, second,
							Math.min(first.finishedAt(), second.finishedAt()) - second.startedAt()));
				}
			}
		}
		return overlaps;
	}

	/**
	 * Two runs of different nodes that overlap.
	 *
	 * @param first the earlier run
	 * @param second the later run
	 * @param millis length of the overlap
	 */
	record Overlap(JobRun first, JobRun second, long millis) {
	}

}
