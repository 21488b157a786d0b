package io.github.dbleader.autoconfigure.locks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockState;
import org.jspecify.annotations.Nullable;

/**
 * Reads the lock rows and releases locks for the {@link LocksEndpoint}, waiting at most a
 * timeout for the database, so that a request never hangs on a frozen or unreachable
 * database. The statements run on two threads of their own; one that does not answer in
 * time goes on in the background, and later reads wait on it instead of starting another:
 * however often the endpoint is called during an outage, at most one read is outstanding.
 * The last successful read is remembered, to be shown when the database does not answer.
 */
final class LockReader implements AutoCloseable {

	private static final int THREADS = 2;

	/** Statements waiting for a thread; beyond this, a request fails at once. */
	private static final int QUEUE = 16;

	private final ClusterLocks locks;

	private final Duration timeout;

	private final ThreadPoolExecutor executor;

	private final AtomicReference<@Nullable CompletableFuture<Read>> inFlight = new AtomicReference<>();

	private volatile @Nullable Read lastRead;

	LockReader(ClusterLocks locks, Duration timeout) {
		this.locks = locks;
		this.timeout = timeout;
		AtomicInteger count = new AtomicInteger();
		// Threads start on the first request, not here, and end when idle.
		this.executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(QUEUE),
				(runnable) -> {
					Thread thread = new Thread(runnable, "locks-endpoint-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.executor.allowCoreThreadTimeOut(true);
	}

	/**
	 * Read every lock row, joining a read under way.
	 * @return the read, or the last one with the reason the database did not answer
	 */
	Outcome read() {
		CompletableFuture<Read> read = this.inFlight.get();
		if (read == null) {
			CompletableFuture<Read> created = submit(() -> new Read(this.locks.findLocks(), System.nanoTime()));
			read = this.inFlight.compareAndExchange(null, created);
			if (read == null) {
				read = created;
				created.whenComplete((done, ex) -> this.inFlight.compareAndSet(created, null));
				created.thenAccept((done) -> this.lastRead = done);
			}
		}
		try {
			return new Outcome(await(read), null);
		}
		catch (DatabaseTimeoutException ex) {
			return new Outcome(this.lastRead, ex.getMessage());
		}
	}

	/**
	 * Run a statement that changes the database, waiting for it at most the timeout.
	 * @param <T> the result type
	 * @param statement the statement
	 * @return its result
	 * @throws DatabaseTimeoutException if the database did not answer in time or failed
	 */
	<T> T write(Callable<T> statement) {
		return await(submit(statement));
	}

	private <T> CompletableFuture<T> submit(Callable<T> statement) {
		CompletableFuture<T> future = new CompletableFuture<>();
		try {
			this.executor.execute(() -> {
				try {
					future.complete(statement.call());
				}
				catch (Throwable ex) {
					future.completeExceptionally(ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			future.completeExceptionally(ex);
		}
		return future;
	}

	private <T> T await(CompletableFuture<T> future) {
		try {
			return future.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new DatabaseTimeoutException("the database did not answer within " + this.timeout.toMillis() + " ms");
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new DatabaseTimeoutException((cause instanceof RejectedExecutionException)
					? "too many statements to the database are pending" : "the database statement failed: " + cause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new DatabaseTimeoutException("interrupted while waiting for the database");
		}
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
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

	/**
	 * The database did not answer in time, or failed.
	 */
	static final class DatabaseTimeoutException extends RuntimeException {

		DatabaseTimeoutException(String message) {
			super(message);
		}

	}

}
