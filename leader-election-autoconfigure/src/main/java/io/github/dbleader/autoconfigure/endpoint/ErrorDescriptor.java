package io.github.dbleader.autoconfigure.endpoint;

import java.util.function.Supplier;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Why a request to one of the starter's endpoints failed: the JSON body
 * ({@code {"message": "..."}}) of every 4xx and 503 they answer, whatever the application's
 * error page settings ({@code server.error.include-message}).
 *
 * @param message what was wrong, and what is allowed
 */
public record ErrorDescriptor(String message) implements OperationResponseBody {

	/**
	 * Run an operation of an endpoint's web extension, answering an invalid request with
	 * 400 and a database that does not answer in time with 503, each with its message.
	 * @param operation the operation
	 * @return its response, or the refusal
	 */
	public static WebEndpointResponse<OperationResponseBody> respond(
			Supplier<WebEndpointResponse<OperationResponseBody>> operation) {
		try {
			return operation.get();
		}
		catch (InvalidEndpointRequestException ex) {
			return new WebEndpointResponse<>(new ErrorDescriptor(ex.getReason()),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		catch (DatabaseUnavailableException ex) {
			return new WebEndpointResponse<>(new ErrorDescriptor(String.valueOf(ex.getMessage())),
					WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
	}

	/**
	 * A 404 with a message.
	 * @param message what was not found, and where to look instead
	 * @return the response
	 */
	public static WebEndpointResponse<OperationResponseBody> notFound(String message) {
		return new WebEndpointResponse<>(new ErrorDescriptor(message), WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
