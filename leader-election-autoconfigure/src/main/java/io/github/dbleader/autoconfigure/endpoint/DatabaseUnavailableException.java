package io.github.dbleader.autoconfigure.endpoint;

/**
 * Thrown by the {@link LeaderEndpoint} when the database does not answer in time and this
 * node has no view of its own to show instead: an election it does not run and never read
 * before. Over HTTP the answer is 503 with the message.
 */
public class DatabaseUnavailableException extends RuntimeException {

	/**
	 * Create an exception.
	 * @param message what could not be read, and why
	 */
	public DatabaseUnavailableException(String message) {
		super(message);
	}

}
