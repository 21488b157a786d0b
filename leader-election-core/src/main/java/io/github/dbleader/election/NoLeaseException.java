package io.github.dbleader.election;

/**
 * Thrown when leadership is forced in an election that has no lease row yet: no node has
 * joined it through the database so far. Nothing was changed; try again after the first
 * heartbeat of a candidate.
 */
public class NoLeaseException extends IllegalStateException {

	private final String election;

	/**
	 * Create an exception.
	 * @param election election name
	 */
	public NoLeaseException(String election) {
		super("Election '" + election + "' has no lease yet");
		this.election = election;
	}

	/**
	 * @return the election name
	 */
	public String getElection() {
		return this.election;
	}

}
