package io.github.dbleader.election.scoped;

import org.jspecify.annotations.Nullable;

/**
 * Work that runs on this node only while it leads an election, or once for each partition
 * of a partition group that it owns: a consumer loop, a stream, a cache only the leader
 * keeps. {@link LeaderScopedServices} (in a Spring Boot application, every bean of this
 * type) calls {@link #start} on a thread of its own when leadership is granted, calls
 * {@link #stop} when it ends (revoked, handed over, standing down, shutdown), and calls
 * {@link #start} again on the next grant, with the new term.
 *
 * <p>
 * {@link #start} may run the work itself until the context is cancelled (a loop that
 * checks {@link LeadershipContext#isCancelled()}, or waits in
 * {@link LeadershipContext#awaitCancellation}), or start something that runs on threads
 * of its own and return, leaving {@link #stop} to stop it. Stopping cancels the context,
 * calls {@link #stop}, interrupts the thread of {@link #start} if it still runs, and
 * waits for that thread a bounded time.
 *
 * <p>
 * A service that throws is logged at WARN and not started again before the next grant;
 * the election goes on.
 */
public interface LeaderScopedService {

	/** The election a service runs in unless it names another one. */
	String DEFAULT_ELECTION = "default";

	/**
	 * The election whose leadership this service follows; ignored if
	 * {@link #partitionGroup()} names a group. This node joins it when the services
	 * start.
	 * @return the election's name, {@value #DEFAULT_ELECTION} by default
	 */
	default String election() {
		return DEFAULT_ELECTION;
	}

	/**
	 * The partition group whose partitions this service follows: it runs once for each
	 * partition this node owns, each run with the partition's term.
	 * @return the group's name, or {@code null} (the default) to follow
	 * {@link #election()}
	 */
	default @Nullable String partitionGroup() {
		return null;
	}

	/**
	 * Start the work of one term, on a thread of its own (never the heartbeat's). Return
	 * when the work is done or has been handed to other threads; leadership may already
	 * have ended by then ({@link LeadershipContext#isLeader()}).
	 * @param context the election, the term and the cancellation signal
	 * @throws Exception if the work fails: logged at WARN, and the service is not started
	 * again before the next grant
	 */
	void start(LeadershipContext context) throws Exception;

	/**
	 * Stop the work of the term that {@code context} names: called on the stopping thread
	 * once the context is cancelled and before the thread of {@link #start} is
	 * interrupted, whether {@link #start} returned, threw or still runs. Close what
	 * {@link #start} waits on (a consumer, a socket), and return quickly: the stop of
	 * other services waits for it.
	 * @param context the context {@link #start} was given
	 */
	default void stop(LeadershipContext context) {
	}

}
