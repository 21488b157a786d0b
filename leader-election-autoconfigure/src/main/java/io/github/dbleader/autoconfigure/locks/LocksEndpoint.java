package io.github.dbleader.autoconfigure.locks;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import io.github.dbleader.autoconfigure.endpoint.DatabaseUnavailableException;
import io.github.dbleader.autoconfigure.endpoint.UnknownTargetException;
import io.github.dbleader.autoconfigure.locks.LockReader.Outcome;
import io.github.dbleader.autoconfigure.locks.LockReader.Read;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockRun;
import io.github.dbleader.election.lock.LockState;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@link Endpoint @Endpoint} that shows the cluster locks ({@code @ClusterLock} and
 * {@link ClusterLocks}) as the database says, with the last runs of each on this node,
 * and lets an operator release a stuck lock.
 *
 * <ul>
 * <li>read: every lock that was ever taken ({@code GET /actuator/locks}), or one by name
 * ({@code GET /actuator/locks/{name}}, 404 if it was never taken): its holder, term, when
 * it was taken and until when it is held, whether this node holds it, and this node's
 * runs of it (running, then the last few that ended: start, end, outcome);
 * <li>delete: release a lock whoever holds it ({@code DELETE /actuator/locks/{name}}).
 * The lock gets a new term and is free at once ({@code atLeastFor} notwithstanding). A
 * fenced transaction of the holder in flight ends first; every later one is refused, so
 * nothing of the old holder's fenced work commits after the release (work it does outside
 * a fenced transaction is not stopped). Safe to repeat.
 * </ul>
 * Every statement is waited for at most a timeout (the election's statement timeout by
 * default), however the database fails; a read then answers with the last rows this
 * endpoint read, marked {@code stale}, and a release fails with
 * {@link DatabaseUnavailableException} (HTTP 503): its outcome is unknown. Read-only by
 * default: the release needs {@code management.endpoint.locks.access=unrestricted}.
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public class LocksEndpoint implements AutoCloseable {

	private final ClusterLocks locks;

	private final LockReader reader;

	/**
	 * Create an endpoint.
	 * @param locks the cluster locks of this node
	 * @param timeout longest wait for the database
	 */
	public LocksEndpoint(ClusterLocks locks, Duration timeout) {
		this.locks = locks;
		this.reader = new LockReader(locks, timeout);
	}

	/**
	 * Describe every lock.
	 * @return this node's id and the locks by name
	 */
	@ReadOperation
	public LocksDescriptor locks() {
		Outcome outcome = this.reader.read();
		Read read = outcome.read();
		Map<String, LockDescriptor> locks = new LinkedHashMap<>();
		if (read != null) {
			read.locks().forEach((lock) -> locks.put(lock.name(), describe(lock)));
		}
		return new LocksDescriptor(this.locks.getNodeId(), locks, outcome.error() != null, outcome.error(),
				(read != null) ? millis(read.age()) : null);
	}

	/**
	 * Describe one lock.
	 * @param name the lock's name
	 * @return the lock
	 * @throws UnknownTargetException if it was never taken (or, while the database does
	 * not answer, this endpoint never read it)
	 */
	@ReadOperation
	public LockDescriptor lock(@Selector String name) {
		requireValidName(name);
		LockDescriptor lock = locks().locks().get(name);
		if (lock == null) {
			throw new UnknownTargetException("Lock '" + name + "' is unknown: it was never taken (or, while the "
					+ "database does not answer, this node never read it)");
		}
		return lock;
	}

	/**
	 * Release a lock whoever holds it, with a new term that fences the holder out.
	 * @param name the lock's name
	 * @return the lock's new term, or {@code null} if it was never taken (HTTP 204)
	 * @throws DatabaseUnavailableException if the database did not answer in time: the
	 * release may still happen, and is safe to repeat
	 */
	@DeleteOperation
	public @Nullable ReleaseDescriptor release(@Selector String name) {
		requireValidName(name);
		OptionalLong term = this.reader.write("Release of lock '" + name + "'", () -> this.locks.forceRelease(name));
		return term.isPresent() ? new ReleaseDescriptor(name, term.getAsLong()) : null;
	}

	private LockDescriptor describe(LockState lock) {
		String nodeId = this.locks.getNodeId();
		List<RunDescriptor> runs = this.locks.recentRuns(lock.name())
			.stream()
			.map((run) -> new RunDescriptor(run.term(), run.startedAt(), run.endedAt(), run.outcome()))
			.toList();
		return new LockDescriptor(lock.held() ? lock.holder() : null, lock.holder(), lock.term(), lock.acquiredAt(),
				lock.expiresAt(), lock.held(), lock.held() && nodeId.equals(lock.holder()), runs);
	}

	private static void requireValidName(String name) {
		try {
			ClusterLocks.key(name);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException("Invalid lock name", String.valueOf(ex.getMessage()));
		}
	}

	/** Milliseconds are precise enough for people, and the JSON stays short. */
	private static Duration millis(Duration duration) {
		return duration.truncatedTo(ChronoUnit.MILLIS);
	}

	@Override
	public void close() {
		this.reader.close();
	}

	/**
	 * The locks.
	 *
	 * @param nodeId this node's id
	 * @param locks every lock that was ever taken, by name
	 * @param stale whether the database did not answer in time, so that the locks are
	 * those this endpoint read last ({@code age} ago); none if it never read them
	 * @param databaseError why the database did not answer, if {@code stale}
	 * @param age how long ago the locks shown were read (this node's clock)
	 */
	public record LocksDescriptor(String nodeId, Map<String, LockDescriptor> locks, boolean stale,
			@Nullable String databaseError, @Nullable Duration age) implements OperationResponseBody {

	}

	/**
	 * One lock, as the database says.
	 *
	 * @param holder the node that holds it, or {@code null} if it is free
	 * @param lastHolder the node that took it last ({@code null} after an operator's
	 * release)
	 * @param term the term of the last acquisition or release by an operator
	 * @param acquiredAt when it was taken last (database clock)
	 * @param heldUntil until when it is taken (database clock); once released, earlier
	 * than {@code atMostFor} after {@code acquiredAt}
	 * @param held whether it is taken
	 * @param heldByThisNode whether this node holds it
	 * @param recentRuns this node's runs under the lock: those running, then the last few
	 * that ended, newest first
	 */
	public record LockDescriptor(@Nullable String holder, @Nullable String lastHolder, long term,
			@Nullable Instant acquiredAt, Instant heldUntil, boolean held, boolean heldByThisNode,
			List<RunDescriptor> recentRuns) implements OperationResponseBody {

	}

	/**
	 * One run under a lock on this node (this node's clock).
	 *
	 * @param term the term of the acquisition it ran under
	 * @param startedAt when it took the lock
	 * @param endedAt when it ended, or {@code null} while it runs
	 * @param outcome {@code RUNNING}, {@code COMPLETED} or {@code FAILED}
	 */
	public record RunDescriptor(long term, Instant startedAt, @Nullable Instant endedAt, LockRun.Outcome outcome) {

	}

	/**
	 * The outcome of a release.
	 *
	 * @param lock the lock's name
	 * @param term the lock's new term
	 */
	public record ReleaseDescriptor(String lock, long term) implements OperationResponseBody {

	}

}
