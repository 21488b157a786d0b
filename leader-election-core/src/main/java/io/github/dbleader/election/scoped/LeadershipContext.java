package io.github.dbleader.election.scoped;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.NotLeaderException;
import org.jspecify.annotations.Nullable;

/**
 * One term of leadership as a {@link LeaderScopedService} sees it: the election (or
 * partition), the term, and the signal that the service must stop.
 *
 * <p>
 * The signal ({@link #isCancelled()}) is given when the service is stopped: leadership
 * was revoked, or the application stops. {@link #isLeader()} is exact at every call, as
 * {@link Election#isLeader()} is: it turns {@code false} as soon as this node's belief in
 * the term ends, even before the revocation reaches the service.
 */
public final class LeadershipContext {

	/** {@link #partition()} of a context that is no partition's. */
	public static final int NO_PARTITION = -1;

	private final Election election;

	private final long term;

	private final @Nullable String partitionGroup;

	private final int partition;

	private final CountDownLatch cancelled = new CountDownLatch(1);

	LeadershipContext(Election election, long term, @Nullable String partitionGroup, int partition) {
		this.election = election;
		this.term = term;
		this.partitionGroup = partitionGroup;
		this.partition = partition;
	}

	/**
	 * @return the election's name ({@code partition:<group>:<n>} for a partition)
	 */
	public String election() {
		return this.election.name();
	}

	/**
	 * @return this node's id
	 */
	public String nodeId() {
		return this.election.nodeId();
	}

	/**
	 * @return the term (fencing token) of this leadership
	 */
	public long term() {
		return this.term;
	}

	/**
	 * @return the partition group, or {@code null} if the service follows an election
	 */
	public @Nullable String partitionGroup() {
		return this.partitionGroup;
	}

	/**
	 * @return the partition, or {@link #NO_PARTITION} if the service follows an election
	 */
	public int partition() {
		return this.partition;
	}

	/**
	 * Whether the service has been told to stop. A loop checks it at every iteration.
	 * @return {@code true} once the service is being stopped
	 */
	public boolean isCancelled() {
		return this.cancelled.getCount() == 0;
	}

	/**
	 * Whether this node leads with this context's term at this instant, and the service
	 * has not been told to stop. Never touches the database.
	 * @return {@code true} while the term is led and the context not cancelled
	 */
	public boolean isLeader() {
		return !isCancelled() && this.election.isLeader() && this.election.term() == this.term;
	}

	/**
	 * Wait until the service is told to stop, or the timeout passes: a pause in a loop
	 * that ends at once when the service stops.
	 * @param timeout the longest wait
	 * @return {@code true} if cancelled
	 * @throws InterruptedException if the thread is interrupted, as a stop does after the
	 * signal
	 */
	public boolean awaitCancellation(Duration timeout) throws InterruptedException {
		return this.cancelled.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * Run work that must only be committed under this context's term, as
	 * {@link Election#runFenced} does: refused if this node leads with another term by
	 * then.
	 * @param <T> the result type
	 * @param callback the work
	 * @return the work's result
	 * @throws NotLeaderException if this node does not lead with this term; nothing was
	 * committed
	 */
	public <T extends @Nullable Object> T runFenced(FencedCallback<T> callback) {
		return this.election.runFenced((fencedTerm) -> {
			if (fencedTerm != this.term) {
				throw new NotLeaderException(election(), nodeId(), "term " + this.term + " ended");
			}
			return callback.doInFence(fencedTerm);
		});
	}

	void cancel() {
		this.cancelled.countDown();
	}

	@Override
	public String toString() {
		return "election '" + election() + "' (term " + this.term + ")";
	}

}
