package io.github.dbleader.election;

/**
 * Thrown when leadership is forced to a node that is not a live candidate of the election
 * (never seen, or not seen within the lease duration). Nothing was changed.
 */
public class UnknownCandidateException extends IllegalArgumentException {

	private final String election;

	private final String nodeId;

	/**
	 * Create an exception.
	 * @param election election name
	 * @param nodeId the node that was asked for
	 */
	public UnknownCandidateException(String election, String nodeId) {
		super("Node '" + nodeId + "' is not a live candidate of election '" + election
				+ "'; force leadership only to a node listed among the election's candidates");
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
	 * @return the node that was asked for
	 */
	public String getNodeId() {
		return this.nodeId;
	}

}
