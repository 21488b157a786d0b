package io.github.dbleader.autoconfigure.partition;

import io.github.dbleader.autoconfigure.endpoint.ErrorDescriptor;
import io.github.dbleader.autoconfigure.partition.PartitionsEndpoint.GroupDescriptor;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} for the {@link PartitionsEndpoint}
 * that answers an unknown group with 404 and a pin this node refuses (a node that is not a
 * live member, a partition out of range) with 400, each with a body that says what was
 * wrong and what is allowed ({@link ErrorDescriptor}). Bodies and parameters of the wrong
 * shape are refused before they reach it, by the {@code EndpointRequestFilter}.
 */
@EndpointWebExtension(endpoint = PartitionsEndpoint.class)
public class PartitionsEndpointWebExtension {

	private final PartitionsEndpoint delegate;

	/**
	 * Create an extension.
	 * @param delegate the endpoint
	 */
	public PartitionsEndpointWebExtension(PartitionsEndpoint delegate) {
		this.delegate = delegate;
	}

	/**
	 * Describe one group.
	 * @param group group name
	 * @return the group; 404 if this node has no such group
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> group(@Selector String group) {
		GroupDescriptor found = this.delegate.group(group);
		return (found != null) ? new WebEndpointResponse<>(found) : ErrorDescriptor.notFound("This node has no"
				+ " partition group '" + group + "'; its groups are " + this.delegate.partitions().groups().keySet());
	}

	/**
	 * Pin a partition to a node.
	 * @param group group name
	 * @param partition the partition
	 * @param nodeId the node that should own it
	 * @return the group after the request; 400 if the request is refused
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> pin(@Selector String group, int partition, String nodeId) {
		return ErrorDescriptor.respond(() -> new WebEndpointResponse<>(this.delegate.pin(group, partition, nodeId)));
	}

	/**
	 * Remove the pin of a partition.
	 * @param group group name
	 * @param partition the partition
	 * @return the group after the request; 400 if the request is refused
	 */
	@DeleteOperation
	public WebEndpointResponse<OperationResponseBody> unpin(@Selector String group, int partition) {
		return ErrorDescriptor.respond(() -> new WebEndpointResponse<>(this.delegate.unpin(group, partition)));
	}

}
