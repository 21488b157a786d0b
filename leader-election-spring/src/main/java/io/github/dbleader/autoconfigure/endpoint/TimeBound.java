package io.github.dbleader.autoconfigure.endpoint;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.dao.DataAccessException;

/**
 * The time bound of the starter's endpoints ({@code leader}, {@code locks},
 * {@code partitions}, {@code jobs}): their work runs on threads of their own and a
 * request waits for it at most a timeout (the election's statement timeout), so that it
 * never hangs on a frozen or unreachable database. Work that does not end in time goes on
 * in the background; a write then answers 503 with {@code outcome unknown}.
 * <p>
 * Not for applications: public only because the endpoints live in packages of their own.
 */
public final class TimeBound implements AutoCloseable {

	private final Duration timeout;

	private final ThreadPoolExecutor executor;

	/**
	 * Create a bound whose threads start on the first call and end when idle.
	 * @param threadName the name of its threads, numbered
	 * @param threads most threads at once
	 * @param queue most calls waiting for a thread, beyond which a call fails at once; 0
	 * for none (a thread each, up to {@code threads})
	 * @param timeout longest wait for a call
	 */
	public TimeBound(String threadName, int threads, int queue, Duration timeout) {
		this.timeout = timeout;
		AtomicInteger count = new AtomicInteger();
		BlockingQueue<Runnable> waiting = (queue > 0) ? new LinkedBlockingQueue<>(queue) : new SynchronousQueue<>();
		this.executor = new ThreadPoolExecutor((queue > 0) ? threads : 0, threads, 30, TimeUnit.SECONDS, waiting,
				(runnable) -> {
					Thread thread = new Thread(runnable, threadName + "-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.executor.allowCoreThreadTimeOut(true);
	}

	/**
	 * The longest wait for a call.
	 * @return the timeout
	 */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Start work on a thread of this bound.
	 * @param <T> the result type
	 * @param work the work
	 * @return its result to come; failed at once if too many calls are pending
	 */
	public <T> CompletableFuture<T> start(Callable<T> work) {
		CompletableFuture<T> future = new CompletableFuture<>();
		try {
			this.executor.execute(() -> {
				try {
					future.complete(work.call());
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

	/**
	 * Wait at most the timeout for statements to the database.
	 * @param <T> the result type
	 * @param future the statements' result to come
	 * @return the result
	 * @throws DatabaseUnavailableException if the database did not answer in time or
	 * failed ({@link DataAccessException}), saying why; any other failure is thrown as it
	 * is
	 */
	public <T> T await(CompletableFuture<T> future) {
		try {
			return future.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new DatabaseUnavailableException(
					"the database did not answer within " + this.timeout.toMillis() + " ms");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new DatabaseUnavailableException("interrupted while waiting for the database");
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof RejectedExecutionException) {
				throw new DatabaseUnavailableException("too many statements to the database are pending");
			}
			if (cause instanceof DataAccessException) {
				throw new DatabaseUnavailableException("the database statement failed: " + cause);
			}
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(cause);
		}
	}

	/**
	 * Run statements that change the database and wait for them at most the timeout.
	 * @param <T> the result type
	 * @param what what the statements do, for the message when their outcome is unknown
	 * (e.g. {@code "Release of lock 'nightly'"})
	 * @param statements the statements
	 * @return their result
	 * @throws DatabaseUnavailableException if the database did not answer in time or
	 * failed: the change may still happen
	 */
	public <T> T write(String what, Callable<T> statements) {
		try {
			return await(start(statements));
		}
		catch (DatabaseUnavailableException ex) {
			throw new DatabaseUnavailableException(what + ": outcome unknown, " + ex.getMessage()
					+ "; it may still take effect: read before you repeat it");
		}
	}

	/**
	 * Wait at most the timeout for work that goes on past it if it must.
	 * @param <T> the result type
	 * @param future the work's result to come, which must not fail
	 * @return the result, or empty if the work has not ended in time
	 */
	public <T> Optional<T> within(CompletableFuture<T> future) {
		try {
			return Optional.of(future.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS));
		}
		catch (TimeoutException ex) {
			return Optional.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Work under a time bound failed", ex.getCause());
		}
	}

	/**
	 * The calls started and not yet ended, running or waiting for a thread.
	 * @return the number of calls
	 */
	public int pending() {
		return this.executor.getActiveCount() + this.executor.getQueue().size();
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
