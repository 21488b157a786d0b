package io.github.dbleader.election;

/**
 * Source of monotonic time in nanoseconds, like {@link System#nanoTime()}. Only
 * differences between two readings of the same clock are meaningful. Injected so that the
 * state machine can be tested with a fake clock.
 */
@FunctionalInterface
public interface MonotonicClock {

	/** The clock backed by {@link System#nanoTime()}. */
	MonotonicClock SYSTEM = System::nanoTime;

	/**
	 * Return the current reading in nanoseconds.
	 * @return the reading
	 */
	long nanoTime();

}
