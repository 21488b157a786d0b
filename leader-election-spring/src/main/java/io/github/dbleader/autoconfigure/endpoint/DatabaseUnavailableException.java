package io.github.dbleader.autoconfigure.endpoint;

/**
 * Thrown by the starter's endpoints when the database does not answer in time
 * ({@link TimeBound}) and there is nothing to show instead: a write whose outcome is
 * unknown, or an election this node does not run and never read before. Over HTTP the
 * answer is 503 with the message ({@code EndpointErrors}); over JMX the operation fails
 * with it.
 */
public class DatabaseUnavailableException extends RuntimeException {

	/**
	 * Create an exception.
	 * @param message what could not be done, and why
	 */
	public DatabaseUnavailableException(String message) {
		super(message);
	}

}
