package io.github.dbleader.benchmarks.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Order statistics of a small sample, by the nearest-rank method (no interpolation): the
 * median and the 95th percentile are values that were measured. With ten values the 95th
 * percentile is the largest.
 *
 * @param sorted the values in ascending order
 */
record Distribution(List<Long> sorted) {

	static Distribution of(List<Long> values) {
		List<Long> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		return new Distribution(List.copyOf(sorted));
	}

	boolean isEmpty() {
		return this.sorted.isEmpty();
	}

	int size() {
		return this.sorted.size();
	}

	long median() {
		return percentile(50);
	}

	long p95() {
		return percentile(95);
	}

	long min() {
		return this.sorted.get(0);
	}

	long max() {
		return this.sorted.get(this.sorted.size() - 1);
	}

	/**
	 * The nearest-rank percentile: the smallest value with at least {@code p} percent of
	 * the values at or below it.
	 * @param p percent, 0 to 100
	 * @return the value
	 */
	long percentile(int p) {
		int rank = Math.max(1, (int) Math.ceil(p / 100.0 * this.sorted.size()));
		return this.sorted.get(rank - 1);
	}

}
