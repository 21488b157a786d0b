package io.github.dbleader.autoconfigure.endpoint;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * Why a request to one of the starter's endpoints failed: the JSON body
 * ({@code {"message": "..."}}) of every 400, 404 and 503 they answer, on every web stack
 * and whatever the application's error page settings
 * ({@code server.error.include-message}). Over JMX the operation fails with the same
 * message ({@link EndpointErrors}).
 *
 * @param message what was wrong, and what is allowed
 */
public record ErrorDescriptor(String message) implements OperationResponseBody {

}
