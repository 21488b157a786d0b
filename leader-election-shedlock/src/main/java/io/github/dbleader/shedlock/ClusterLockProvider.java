package io.github.dbleader.shedlock;

import java.util.Objects;
import java.util.Optional;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;

/**
 * ShedLock {@link LockProvider} over {@link ClusterLocks}: each {@code lock} is a
 * {@link ClusterLocks#startRun run} under the cluster lock of the same name, with
 * ShedLock's {@code lockAtMostFor} and {@code lockAtLeastFor}; {@code unlock} ends the
 * run and releases the lock. The lock's expiry is decided on the database clock, every
 * run gets a fencing token ({@link HeldLock#term()}), and the runs show in the locks
 * endpoint, metrics and health like those of {@code @ClusterLock}.
 *
 * <p>
 * The lock is also {@link ExtensibleLockProvider extensible}: ShedLock's
 * {@code LockExtender} and {@code KeepAliveLockProvider} call {@link HeldLock#extend}. An
 * extension that fails because the lock is no longer held ends the run (ShedLock then
 * refuses the old lock's {@code unlock}).
 *
 * <p>
 * With a {@link ShedLockBridge}, each lock takes ShedLock's own row of its name too, for
 * a rolling migration from ShedLock's {@code JdbcTemplateLockProvider}.
 *
 * <p>
 * While a run holds its lock, {@link SchedulerLockContext} gives the lock to the code of
 * the run on the thread that took it, for its term and fenced work.
 */
public class ClusterLockProvider implements ExtensibleLockProvider {

	private final ClusterLocks locks;

	private final @Nullable ShedLockBridge bridge;

	/**
	 * Create a provider.
	 * @param locks the cluster locks
	 */
	public ClusterLockProvider(ClusterLocks locks) {
		this.locks = Objects.requireNonNull(locks, "locks must not be null");
		this.bridge = null;
	}

	/**
	 * Create a provider for a rolling migration from ShedLock's
	 * {@code JdbcTemplateLockProvider}: each lock also takes ShedLock's row of the same
	 * name, before the cluster lock, and releases it after the cluster lock, as ShedLock
	 * would; so the old nodes, still on ShedLock's provider, and this one never run the
	 * same trigger.
	 * @param locks the cluster locks
	 * @param bridge ShedLock's rows
	 */
	public ClusterLockProvider(ClusterLocks locks, ShedLockBridge bridge) {
		this.locks = Objects.requireNonNull(locks, "locks must not be null");
		this.bridge = Objects.requireNonNull(bridge, "bridge must not be null");
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
		if (this.bridge == null) {
			return startRun(configuration, null);
		}
		// ShedLock's row first, the cluster lock second, and the release in the reverse
		// order: whoever holds the cluster lock holds ShedLock's row too, so an old node,
		// which sees that row only, never runs beside a new one.
		Optional<ShedLockBridge.Row> row = this.bridge.take(configuration);
		if (row.isEmpty()) {
			return Optional.empty();
		}
		Optional<SimpleLock> lock = Optional.empty();
		try {
			lock = startRun(configuration, row.get());
			return lock;
		}
		finally {
			if (lock.isEmpty()) {
				row.get().giveBack();
			}
		}
	}

	private Optional<SimpleLock> startRun(LockConfiguration configuration, ShedLockBridge.@Nullable Row row) {
		return this.locks
			.startRun(configuration.getName(), configuration.getLockAtMostFor(), configuration.getLockAtLeastFor())
			.map((run) -> new ClusterSimpleLock(configuration, run, SchedulerLockContext.bind(run.lock()), row));
	}

	/**
	 * @return the migration bridge, if this provider takes ShedLock's rows too
	 */
	public Optional<ShedLockBridge> getBridge() {
		return Optional.ofNullable(this.bridge);
	}

	/**
	 * @return the cluster locks this provider takes
	 */
	public ClusterLocks getClusterLocks() {
		return this.locks;
	}

	@Override
	public String toString() {
		return "ClusterLockProvider[node=" + this.locks.getNodeId() + ((this.bridge != null) ? ", " + this.bridge : "")
				+ "]";
	}

}
