package io.github.dbleader.autoconfigure.locks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import io.github.dbleader.autoconfigure.endpoint.DatabaseUnavailableException;
import io.github.dbleader.autoconfigure.endpoint.TimeBound;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockState;
import org.jspecify.annotations.Nullable;

/**
 * Reads the lock rows and releases locks for the {@code LocksEndpoint}, waiting at most a
 * timeout for the database ({@link TimeBound}), so that a request never hangs on a frozen
 * or unreachable database. The statements run on two threads of their own; one that does
 * not answer in time goes on in the background, and later reads wait on it instead of
 * starting another: however often the endpoint is called during an outage, at most one
 * read is outstanding. The last successful read is remembered, to be shown when the
 * database does not answer.
 */
final class LockReader implements AutoCloseable {

	private final ClusterLocks locks;

	private final TimeBound bound;

	private final AtomicReference<@Nullable CompletableFuture<Read>> inFlight = new AtomicReference<>();

	private volatile @Nullable Read lastRead;

	LockReader(ClusterLocks locks, Duration timeout) {
		this.locks = locks;
		this.bound = new TimeBound("locks-endpoint", 2, 16, timeout);
	}

	/**
	 * Read every lock row, joining a read under way.
	 * @return the read, or the last one with the reason the database did not answer
	 */
	Outcome read() {
		CompletableFuture<Read> read = this.inFlight.get();
		if (read == null) {
			CompletableFuture<Read> created = this.bound
				.start(() -> new Read(this.locks.findLocks(), System.nanoTime()));
			read = this.inFlight.compareAndExchange(null, created);
			if (read == null) {
				read = created;
				created.whenComplete((done, ex) -> this.inFlight.compareAndSet(created, null));
				created.thenAccept((done) -> this.lastRead = done);
			}
		}
		try {
			return new Outcome(this.bound.await(read), null);
		}
		catch (DatabaseUnavailableException ex) {
			return new Outcome(this.lastRead, ex.getMessage());
		}
	}

	/**
	 * Run statements that change the database, waiting for them at most the timeout.
	 * @param <T> the result type
	 * @param what what they do, for the message when their outcome is unknown
	 * @param statements the statements
	 * @return their result
	 * @throws DatabaseUnavailableException if the database did not answer in time or
	 * failed
	 */
	<T> T write(String what, Callable<T> statements) {
		return this.bound.write(what, statements);
	}

	@Override
	public void close() {
		this.bound.close();
	}

	/**
	 * One read of the lock rows.
	 *
	 * @param locks the rows
	 * @param readAtNanos when the read returned ({@link System#nanoTime()})
	 */
	record Read(List<LockState> locks, long readAtNanos) {

		Duration age() {
			return Duration.ofNanos(System.nanoTime() - this.readAtNanos);
		}

	}

	/**
	 * The outcome of a read.
	 *
	 * @param read the read if the database answered, else the last one, if any
	 * @param error why the database did not answer, or {@code null} if it did
	 */
	record Outcome(@Nullable Read read, @Nullable String error) {

	}

}
