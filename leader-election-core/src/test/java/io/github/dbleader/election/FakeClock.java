package io.github.dbleader.election;

import java.time.Duration;

/**
 * A monotonic clock that only moves when told to.
 */
final class FakeClock implements MonotonicClock {

	private long nanos = 1_000_000_000L;

	@Override
	public long nanoTime() {
		return this.nanos;
	}

	void advance(Duration duration) {
		this.nanos += duration.toNanos();
	}

}
