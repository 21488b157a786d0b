package io.github.dbleader.election;

/**
 * Thrown by {@link Election#runFenced} when this node is not, or no longer, the leader of
 * the term it believed in. Nothing of the callback was committed.
 */
public class NotLeaderException extends RuntimeException {

	private final String election;

	private final String nodeId;

	/**
	 * Create an exception.
	 * @param election election name
	 * @param nodeId this node
	 * @param message what was found
	 */
	public NotLeaderException(String election, String nodeId, String message) {
		super("Node '" + nodeId + "' is not the leader of election '" + election + "': " + message);
		this.election = election;
		this.nodeId = nodeId;
	}

	/**
	 * Create an exception with a message of its own.
	 * @param election election name
	 * @param nodeId this node
	 * @param message the whole message
	 * @param cause what the database reported
	 */
	protected NotLeaderException(String election, String nodeId, String message, Throwable cause) {
		super(message, cause);
		this.election = election;
		this.nodeId = nodeId;
	}

	/**
	 * @return the election name
	 */
	public String getElection() {
		return this.election;
	}

	/**
	 * @return the node that is not the leader
	 */
	public String getNodeId() {
		return this.nodeId;
	}

}
