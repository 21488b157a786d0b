package io.github.dbleader.election.lock;

/**
 * Thrown by {@link HeldLock#runFenced} when the acquisition no longer holds its lock: it
 * was released, it expired, or another node took it. Nothing of the callback was
 * committed.
 */
public class LockNotHeldException extends RuntimeException {

	private final String lockName;

	private final long term;

	/**
	 * Create an exception.
	 * @param lockName the lock's row in the lease table ({@link ClusterLocks#KEY_PREFIX}
	 * and the name)
	 * @param term the term of the acquisition
	 * @param message what was found
	 */
	public LockNotHeldException(String lockName, long term, String message) {
		super("Lock '" + lockName + "' is not held with term " + term + ": " + message);
		this.lockName = lockName;
		this.term = term;
	}

	/**
	 * @return the lock's row in the lease table
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * @return the term of the acquisition that no longer holds the lock
	 */
	public long getTerm() {
		return this.term;
	}

}
