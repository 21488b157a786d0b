package io.github.dbleader.autoconfigure.endpoint;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.LeaseState;
import org.jspecify.annotations.Nullable;

/**
 * Reads the lease and the live candidates of elections for the {@code LeaderEndpoint},
 * waiting at most a timeout for the database, so that a request never hangs on a frozen
 * or unreachable database, or behind a heartbeat that holds the election's connections.
 * <p>
 * The reads run on two threads of their own ({@link TimeBound}). A read that does not
 * answer in time goes on in the background, and later requests for the same election wait
 * on that read instead of starting another one: however often the endpoint is called
 * during an outage, at most one read per election is outstanding and no more than two
 * threads are stuck. The last successful read of each election is remembered, to be shown
 * when the database does not answer.
 */
final class LeaseReader implements AutoCloseable {

	/**
	 * Reads waiting for a thread; beyond this, a read fails at once instead of queueing.
	 */
	private static final int QUEUE = 64;

	private final LeaseRepository repository;

	private final Duration candidateMaxAge;

	private final TimeBound bound;

	private final Map<String, CompletableFuture<Read>> inFlight = new ConcurrentHashMap<>();

	private final Map<String, Read> lastReads = new ConcurrentHashMap<>();

	/**
	 * Create a reader.
	 * @param repository the leases
	 * @param candidateMaxAge how recently a candidate must have been seen to be live
	 * @param timeout longest wait for the database
	 */
	LeaseReader(LeaseRepository repository, Duration candidateMaxAge, Duration timeout) {
		this.repository = repository;
		this.candidateMaxAge = candidateMaxAge;
		this.bound = new TimeBound("leader-endpoint-read", 2, QUEUE, timeout);
	}

	Duration timeout() {
		return this.bound.timeout();
	}

	/**
	 * Read elections from the database, all within one timeout.
	 * @param elections the election names
	 * @return the outcome for each election, in the given order
	 */
	Map<String, Outcome> read(List<String> elections) {
		return read(elections, true);
	}

	/**
	 * Read an election after a write: with a read that starts now, not one that is
	 * already under way and could miss the write.
	 * @param election the election name
	 * @return the outcome
	 */
	Outcome readAfterWrite(String election) {
		return read(List.of(election), false).get(election);
	}

	private Map<String, Outcome> read(List<String> elections, boolean joinPending) {
		Map<String, CompletableFuture<Read>> reads = new LinkedHashMap<>();
		elections.forEach((election) -> reads.put(election, joinPending ? start(election) : submit(election)));
		long deadline = System.nanoTime() + this.bound.timeout().toNanos();
		Map<String, Outcome> outcomes = new LinkedHashMap<>();
		reads.forEach((election, read) -> outcomes.put(election, await(election, read, deadline)));
		return outcomes;
	}

	private CompletableFuture<Read> start(String election) {
		CompletableFuture<Read> running = this.inFlight.get(election);
		if (running != null) {
			return running;
		}
		CompletableFuture<Read> created = new CompletableFuture<>();
		running = this.inFlight.putIfAbsent(election, created);
		if (running != null) {
			return running;
		}
		created.whenComplete((read, ex) -> this.inFlight.remove(election, created));
		submit(election, created);
		return created;
	}

	private CompletableFuture<Read> submit(String election) {
		CompletableFuture<Read> created = new CompletableFuture<>();
		submit(election, created);
		return created;
	}

	private void submit(String election, CompletableFuture<Read> created) {
		created.thenAccept((read) -> {
			if (read.lease().isPresent()) {
				// Only elections with a lease row: requests for any name must not grow
				// the map.
				this.lastReads.merge(election, read,
						(old, now) -> (now.readAtNanos() - old.readAtNanos() > 0) ? now : old);
			}
		});
		this.bound.start(() -> {
			Optional<LeaseState> lease = this.repository.find(election);
			List<Candidate> candidates = this.repository.liveCandidates(election, this.candidateMaxAge);
			return new Read(lease, candidates, System.nanoTime());
		}).whenComplete((read, ex) -> {
			if (ex != null) {
				created.completeExceptionally(ex);
			}
			else {
				created.complete(read);
			}
		});
	}

	private Outcome await(String election, CompletableFuture<Read> read, long deadline) {
		String error;
		try {
			return new Outcome(read.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS), null, null);
		}
		catch (TimeoutException ex) {
			error = "the database did not answer within " + this.bound.timeout().toMillis() + " ms";
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			error = (cause instanceof RejectedExecutionException) ? "too many reads of the database are pending"
					: "the database read failed: " + cause;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			error = "interrupted while waiting for the database";
		}
		return new Outcome(null, this.lastReads.get(election), error);
	}

	/**
	 * The reads started and not yet ended, running or waiting for a thread.
	 * @return the number of reads
	 */
	int pendingReads() {
		return this.bound.pending();
	}

	@Override
	public void close() {
		this.bound.close();
	}

	/**
	 * One read of an election.
	 *
	 * @param lease the lease row, if any
	 * @param candidates the live candidates
	 * @param readAtNanos when the read returned ({@link System#nanoTime()})
	 */
	record Read(Optional<LeaseState> lease, List<Candidate> candidates, long readAtNanos) {

		Duration age() {
			return Duration.ofNanos(System.nanoTime() - this.readAtNanos);
		}

	}

	/**
	 * The outcome of reading an election.
	 *
	 * @param fresh the read, if the database answered in time
	 * @param last otherwise the last successful read of an election with a lease, if any
	 * @param error otherwise why the database did not answer
	 */
	record Outcome(@Nullable Read fresh, @Nullable Read last, @Nullable String error) {

	}

}
