package io.github.dbleader.shedlock;

import java.util.Optional;

import io.github.dbleader.election.lock.LockRun;
import io.github.dbleader.election.lock.LockedRun;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock lock of one run of {@link ClusterLockProvider}: the run's acquisition, as of
 * its last extension. ShedLock's base class makes each instance usable once (unlock or
 * extend); an extension returns another instance over the same run (and over ShedLock's
 * row, if the provider has a {@link ShedLockBridge}).
 */
final class ClusterSimpleLock extends AbstractSimpleLock {

	private final LockedRun run;

	/** Ends the lock's binding to the thread that took it. */
	private final Runnable unbind;

	/**
	 * ShedLock's row of the lock, taken with it during a migration; {@code null} without.
	 */
	private final ShedLockBridge.@Nullable Row row;

	ClusterSimpleLock(LockConfiguration configuration, LockedRun run, Runnable unbind,
			ShedLockBridge.@Nullable Row row) {
		super(configuration);
		this.run = run;
		this.unbind = unbind;
		this.row = row;
	}

	/** Release the cluster lock, then ShedLock's row, the reverse of their take. */
	@Override
	protected void doUnlock() {
		end(true);
		if (this.row != null) {
			this.row.unlock(this.lockConfiguration);
		}
	}

	/**
	 * Extend the run's lock by {@code lockAtMostFor} from now (database clock);
	 * {@code lockAtLeastFor} counts from now too. A lock that is no longer held ends its
	 * run without a release: there is nothing left to release.
	 */
	@Override
	protected Optional<SimpleLock> doExtend(LockConfiguration configuration) {
		// ShedLock's row first, as it was taken: a cluster lock is never held longer than
		// it.
		if (this.row == null || this.row.extend(configuration)) {
			if (this.run.lock().extend(configuration.getLockAtMostFor(), configuration.getLockAtLeastFor())) {
				return Optional.of(new ClusterSimpleLock(configuration, this.run, this.unbind, this.row));
			}
			if (this.row != null) {
				// Extended for a run that has lost its lock: the old nodes need not wait
				// for it.
				this.row.giveBack();
			}
		}
		end(false);
		return Optional.empty();
	}

	private void end(boolean release) {
		this.unbind.run();
		// ShedLock does not tell the provider whether the task threw.
		this.run.end(LockRun.Outcome.ENDED, release);
	}

	@Override
	public String toString() {
		return "ClusterSimpleLock[" + this.run.lock() + "]";
	}

}
