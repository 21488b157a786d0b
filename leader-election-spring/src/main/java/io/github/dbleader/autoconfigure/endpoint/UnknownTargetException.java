package io.github.dbleader.autoconfigure.endpoint;

/**
 * Thrown by the starter's endpoints when the election, lock, partition group or job that
 * a request names is unknown to this node. Over HTTP the answer is 404 with the message
 * ({@code EndpointErrors}); over JMX the operation fails with it.
 */
public class UnknownTargetException extends RuntimeException {

	/**
	 * Create an exception.
	 * @param message what is unknown, and what this node knows instead
	 */
	public UnknownTargetException(String message) {
		super(message);
	}

}
