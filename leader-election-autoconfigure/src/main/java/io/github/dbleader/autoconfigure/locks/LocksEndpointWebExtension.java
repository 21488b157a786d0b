package io.github.dbleader.autoconfigure.locks;

import io.github.dbleader.autoconfigure.endpoint.ErrorDescriptor;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint.LockDescriptor;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint.ReleaseDescriptor;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} for the {@link LocksEndpoint} that
 * answers an invalid lock name with 400 and a lock never taken with 404, each with a body
 * that says what was wrong ({@link ErrorDescriptor}).
 */
@EndpointWebExtension(endpoint = LocksEndpoint.class)
public class LocksEndpointWebExtension {

	private final LocksEndpoint delegate;

	/**
	 * Create an extension.
	 * @param delegate the endpoint
	 */
	public LocksEndpointWebExtension(LocksEndpoint delegate) {
		this.delegate = delegate;
	}

	/**
	 * Describe one lock.
	 * @param name the lock's name
	 * @return the lock; 404 if it was never taken, 400 if the name is invalid
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> lock(@Selector String name) {
		return ErrorDescriptor.respond(() -> {
			LockDescriptor lock = this.delegate.lock(name);
			return (lock != null) ? new WebEndpointResponse<>(lock) : ErrorDescriptor.notFound("Lock '" + name
					+ "' is unknown: it was never taken (or, while the database does not answer, this node never read it)");
		});
	}

	/**
	 * Release a lock whoever holds it.
	 * @param name the lock's name
	 * @return the lock's new term; 204 if it was never taken, 400 if the name is invalid
	 */
	@DeleteOperation
	public WebEndpointResponse<OperationResponseBody> release(@Selector String name) {
		return ErrorDescriptor.respond(() -> {
			ReleaseDescriptor released = this.delegate.release(name);
			return (released != null) ? new WebEndpointResponse<>(released)
					: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NO_CONTENT);
		});
	}

}
