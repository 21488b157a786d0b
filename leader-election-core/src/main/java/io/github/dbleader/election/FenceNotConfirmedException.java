package io.github.dbleader.election;

/**
 * Thrown by {@link Election#runFenced} on a database cluster that certifies write sets
 * (MariaDB Galera Cluster) when the cluster aborted the fenced transaction: it conflicted
 * with a change of holder on another cluster node (or with another write to the same
 * rows), which certification ordered first. The node may have lost its leadership, or may
 * still hold it; either way the fence could not be confirmed and nothing of the callback
 * was committed. Running the work again later is safe: the fence checks leadership anew.
 */
public class FenceNotConfirmedException extends NotLeaderException {

	private final long term;

	/**
	 * Create an exception.
	 * @param election election name
	 * @param nodeId this node
	 * @param term the term the fenced work ran for
	 * @param cause the database's abort (error 1213, SQLSTATE 40001)
	 */
	public FenceNotConfirmedException(String election, String nodeId, long term, Throwable cause) {
		super(election, nodeId,
				"Node '" + nodeId + "' could not confirm its fence of term " + term + " in election '" + election
						+ "': the cluster aborted the fenced transaction in favour of a conflicting write on"
						+ " another node (a change of holder, or the same rows); nothing was committed",
				cause);
		this.term = term;
	}

	/**
	 * @return the term the fenced work ran for
	 */
	public long getTerm() {
		return this.term;
	}

}
