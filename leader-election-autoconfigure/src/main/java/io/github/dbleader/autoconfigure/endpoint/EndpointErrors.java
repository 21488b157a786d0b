package io.github.dbleader.autoconfigure.endpoint;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.invoke.MissingParametersException;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.invoke.ParameterMappingException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;

/**
 * {@link OperationInvokerAdvisor} that gives one of the starter's endpoints the same
 * errors on every web stack (Spring MVC, WebFlux) and over JMX, because it wraps the
 * operation where the actuator binds the request, whatever carries it:
 * <ul>
 * <li>an invalid request (the endpoint's own refusals, and what the actuator's binding
 * refuses: a parameter missing or of the wrong type) is 400;
 * <li>an unknown election, lock, group or job ({@link UnknownTargetException}) is 404;
 * <li>a database that does not answer in time ({@link DatabaseUnavailableException}) is
 * 503;
 * <li>a write or delete with a parameter that the operation does not take (a misspelt
 * field of the body, {@code {"node": "b"}}, would otherwise be dropped without a word) is
 * 400.
 * </ul>
 * Over HTTP each answers with an {@link ErrorDescriptor} body, whatever the application's
 * error page settings; over JMX the operation fails with the same message. Refusals
 * before the actuator binds the request (405 for a write with read-only access, 415 for a
 * body that is not JSON, 400 for malformed JSON) keep the web stack's own error body.
 */
public final class EndpointErrors implements OperationInvokerAdvisor {

	private final EndpointId endpointId;

	/**
	 * Create an advisor for one endpoint.
	 * @param endpointId the endpoint's id
	 */
	public EndpointErrors(EndpointId endpointId) {
		this.endpointId = endpointId;
	}

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!this.endpointId.equals(endpointId)) {
			return invoker;
		}
		List<OperationParameter> all = parameters.stream().toList();
		Set<String> names = all.stream().map(OperationParameter::getName).collect(Collectors.toSet());
		List<String> fields = all.stream()
			.filter((parameter) -> parameter.getAnnotation(Selector.class) == null)
			.map(OperationParameter::getName)
			.toList();
		boolean checkUnknown = operationType != OperationType.READ;
		return (context) -> {
			boolean web = context.canResolve(WebServerNamespace.class);
			try {
				if (checkUnknown) {
					rejectUnknown(context.getArguments().keySet(), names, fields, operationType);
				}
				return invoker.invoke(context);
			}
			catch (InvalidEndpointRequestException ex) {
				String message = message(ex, fields, operationType);
				if (!web) {
					throw new InvalidEndpointRequestException(message, message, ex);
				}
				return error(message, WebEndpointResponse.STATUS_BAD_REQUEST);
			}
			catch (UnknownTargetException ex) {
				if (!web) {
					throw ex;
				}
				return error(ex.getMessage(), WebEndpointResponse.STATUS_NOT_FOUND);
			}
			catch (DatabaseUnavailableException ex) {
				if (!web) {
					throw ex;
				}
				return error(ex.getMessage(), WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
			}
		};
	}

	private static void rejectUnknown(Set<String> arguments, Set<String> names, List<String> fields,
			OperationType operationType) {
		Set<String> unknown = new TreeSet<>(arguments);
		unknown.removeAll(names);
		if (!unknown.isEmpty()) {
			String message = "Unknown " + noun(operationType) + "(s) " + unknown + where(operationType) + "; "
					+ allowed(fields, operationType);
			throw new InvalidEndpointRequestException(message, message);
		}
	}

	private static String allowed(List<String> fields, OperationType operationType) {
		if (fields.isEmpty()) {
			return "the operation takes none";
		}
		return (fields.size() == 1) ? "the only " + noun(operationType) + " is " + fields.get(0)
				: "the " + noun(operationType) + "s are " + fields;
	}

	/** A write's parameters come in its JSON body, a delete's in its query. */
	private static String noun(OperationType operationType) {
		return (operationType == OperationType.WRITE) ? "field" : "query parameter";
	}

	private static String where(OperationType operationType) {
		return (operationType == OperationType.WRITE) ? " in the request body" : "";
	}

	/** The reason, in words that name the parameter, for the actuator's own refusals. */
	private static String message(InvalidEndpointRequestException ex, List<String> fields,
			OperationType operationType) {
		if (ex instanceof MissingParametersException missing) {
			Set<String> absent = missing.getMissingParameters()
				.stream()
				.map(OperationParameter::getName)
				.collect(Collectors.toSet());
			List<String> names = fields.stream().filter(absent::contains).toList();
			return "Missing " + noun(operationType) + ((names.size() == 1) ? " " : "s ") + String.join(", ", names)
					+ where(operationType) + "; " + allowed(fields, operationType);
		}
		if (ex instanceof ParameterMappingException mapping) {
			OperationParameter parameter = mapping.getParameter();
			return parameter.getName() + " must be " + kind(parameter.getType()) + " but was '"
					+ abbreviate(String.valueOf(mapping.getValue())) + "'";
		}
		return ex.getReason();
	}

	private static String kind(Class<?> type) {
		if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
			return "an integer";
		}
		return (type == String.class) ? "a string" : "a " + type.getSimpleName();
	}

	private static String abbreviate(String value) {
		return (value.length() > 60) ? value.substring(0, 60) + "..." : value;
	}

	private static WebEndpointResponse<ErrorDescriptor> error(@Nullable String message, int status) {
		return new WebEndpointResponse<>(new ErrorDescriptor(String.valueOf(message)), status);
	}

}
