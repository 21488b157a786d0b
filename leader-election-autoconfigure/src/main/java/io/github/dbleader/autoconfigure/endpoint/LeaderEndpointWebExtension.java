package io.github.dbleader.autoconfigure.endpoint;

import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint.ElectionDescriptor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} for the {@link LeaderEndpoint} that
 * answers an invalid request with 400, an unknown election with 404 and an election that
 * cannot be read in time with 503 ({@link DatabaseUnavailableException}), each with a body
 * that says what was wrong ({@link ErrorDescriptor}).
 */
@EndpointWebExtension(endpoint = LeaderEndpoint.class)
public class LeaderEndpointWebExtension {

	private final LeaderEndpoint delegate;

	/**
	 * Create an extension.
	 * @param delegate the endpoint
	 */
	public LeaderEndpointWebExtension(LeaderEndpoint delegate) {
		this.delegate = delegate;
	}

	/**
	 * Describe one election.
	 * @param election the election name
	 * @return the election; 404 if unknown, 400 if the name is invalid, 503 if the
	 * database does not answer in time and this node has no view of the election
	 */
	@ReadOperation
	public WebEndpointResponse<OperationResponseBody> election(@Selector String election) {
		return ErrorDescriptor.respond(() -> {
			ElectionDescriptor descriptor = this.delegate.election(election);
			if (descriptor == null) {
				return ErrorDescriptor.notFound(
						"Election '" + election + "' is unknown: this node does not run it and it has no lease");
			}
			return new WebEndpointResponse<>(descriptor);
		});
	}

	/**
	 * Force leadership to a node.
	 * @param election the election name
	 * @param nodeId the node that should lead, or {@code null} for this node
	 * @return the election after the request; 400 if the request is invalid
	 */
	@WriteOperation
	// Spring Boot 3's actuator (leader-election-spring-boot-3-autoconfigure compiles this class
	// too) takes a parameter for optional only with Spring's @Nullable, deprecated in Spring
	// Framework 7; without it a POST without a body gets a 400 there. Boot 4 reads JSpecify's.
	@SuppressWarnings("deprecation")
	public WebEndpointResponse<OperationResponseBody> forceLeader(@Selector String election,
			@org.springframework.lang.Nullable @Nullable String nodeId) {
		return ErrorDescriptor.respond(() -> new WebEndpointResponse<>(this.delegate.forceLeader(election, nodeId)));
	}

	/**
	 * Force a re-election.
	 * @param election the election name
	 * @return the election after the request; 400 if the request is invalid
	 */
	@DeleteOperation
	public WebEndpointResponse<OperationResponseBody> forceReelection(@Selector String election) {
		return ErrorDescriptor.respond(() -> new WebEndpointResponse<>(this.delegate.forceReelection(election)));
	}

}
