package io.github.dbleader.shedlock;

import java.util.Objects;
import java.util.Optional;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock {@link LockProvider} over {@link ClusterLocks}: each {@code lock} is a
 * {@link ClusterLocks#startRun run} under the cluster lock of the same name, with
 * ShedLock's {@code lockAtMostFor} and {@code lockAtLeastFor}; {@code unlock} ends the run
 * and releases the lock. The lock's expiry is decided on the database clock, every run
 * gets a fencing token ({@link HeldLock#term()}), and the runs show in the locks endpoint,
 * metrics and health like those of {@code @ClusterLock}.
 *
 * <p>The lock is also {@link ExtensibleLockProvider extensible}: ShedLock's
 * {@code LockExtender} and {@code KeepAliveLockProvider} call {@link HeldLock#extend}. An
 * extension that fails because the lock is no longer held ends the run (ShedLock then
 * refuses the old lock's {@code unlock}).
 *
 * <p>While a run holds its lock, {@link SchedulerLockContext} gives the lock to the code
 * of the run on the thread that took it, for its term and fenced work.
 */
public class ClusterLockProvider implements ExtensibleLockProvider {

	private final ClusterLocks locks;

	/**
	 * Create a provider.
	 * @param locks the cluster locks
	 */
	public ClusterLockProvider(ClusterLocks locks) {
		this.locks = Objects.requireNonNull(locks, "locks must not be null");
	}

	/**
	 * Take the lock of a run, unless another node (or another run on this node) holds it.
	 * Never throws for a database failure: the run is then skipped.
	 * @param configuration the lock's name, {@code lockAtMostFor} and
	 * {@code lockAtLeastFor}
	 * @return the lock, or empty if it is taken
	 * @throws IllegalArgumentException if the name is longer than
	 * {@link ClusterLocks#MAX_NAME_LENGTH} or {@code lockAtMostFor} is shorter than a
	 * millisecond
	 */
	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		return this.locks
			.startRun(configuration.getName(), configuration.getLockAtMostFor(), configuration.getLockAtLeastFor())
			.map((run) -> new ClusterSimpleLock(configuration, run, SchedulerLockContext.bind(run.lock())));
	}

	/** @return the cluster locks this provider takes */
	public ClusterLocks getClusterLocks() {
		return this.locks;
	}

	@Override
	public String toString() {
		return "ClusterLockProvider[node=" + this.locks.getNodeId() + "]";
	}

}
