package io.github.dbleader.autoconfigure.endpoint;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.json.JsonParser;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.json.JsonWriter;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Checks a request to an endpoint before the actuator binds it, because the actuator
 * ignores what it cannot bind: a malformed body or a parameter of the wrong type would get
 * a 400 without a reason, and a misspelt field (e.g. {@code {"node": "b"}}) would silently
 * be left out. Each of these now gets a 400 whose JSON body ({@code {"message": "..."}})
 * says what was wrong and what is expected. Checks the body of a {@code POST} and the query
 * parameters of a {@code DELETE}, as the endpoint's {@link Shape} declares them.
 */
public class EndpointRequestFilter extends OncePerRequestFilter {

	static final int MAX_BODY_BYTES = 4096;

	private static final JsonWriter<Map<String, Object>> ERROR_WRITER = JsonWriter.standard();

	private final JsonParser parser = JsonParserFactory.getJsonParser();

	private final Shape shape;

	/**
	 * Create a filter.
	 * @param shape what the endpoint's requests may carry
	 */
	public EndpointRequestFilter(Shape shape) {
		this.shape = shape;
	}

	/**
	 * A filter registration for the endpoint at a path (and below it).
	 * @param path the endpoint's path relative to the servlet context
	 * @param shape what the endpoint's requests may carry
	 * @return the registration
	 */
	public static FilterRegistrationBean<EndpointRequestFilter> registration(String path, Shape shape) {
		FilterRegistrationBean<EndpointRequestFilter> registration = new FilterRegistrationBean<>(
				new EndpointRequestFilter(shape));
		registration.addUrlPatterns(path, path + "/*");
		return registration;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !"POST".equals(request.getMethod())
				&& !("DELETE".equals(request.getMethod()) && !this.shape.deleteParameters().isEmpty());
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if ("DELETE".equals(request.getMethod())) {
			String problem = queryProblem(request);
			if (problem != null) {
				reject(response, problem);
				return;
			}
			chain.doFilter(request, response);
			return;
		}
		byte[] body = request.getInputStream().readNBytes(MAX_BODY_BYTES + 1);
		if (body.length > MAX_BODY_BYTES) {
			reject(response, "Request body is longer than " + MAX_BODY_BYTES + " bytes; expected "
					+ this.shape.expectedBody());
			return;
		}
		String json = new String(body, StandardCharsets.UTF_8).strip();
		if (json.isEmpty()) {
			if (!this.shape.emptyBodyMeans().isEmpty()) {
				chain.doFilter(new BodyRequest(request, body, request.getContentType() == null), response);
			}
			else {
				reject(response, "Request body is empty; expected " + this.shape.expectedBody());
			}
			return;
		}
		String problem = bodyProblem(json);
		if (problem != null) {
			reject(response, problem);
			return;
		}
		chain.doFilter(new BodyRequest(request, body, false), response);
	}

	private @Nullable String queryProblem(HttpServletRequest request) {
		for (Parameter parameter : this.shape.deleteParameters()) {
			String value = request.getParameter(parameter.name());
			if (value == null) {
				return "Missing query parameter " + parameter.name() + "; expected ?" + parameter.name() + "="
						+ parameter.placeholder();
			}
			if (parameter.integer() && !isInteger(value)) {
				return parameter.name() + " must be an integer but was '" + abbreviate(value) + "'";
			}
		}
		return null;
	}

	private @Nullable String bodyProblem(String json) {
		Map<String, Object> fields;
		try {
			fields = this.parser.parseMap(json);
		}
		catch (IllegalArgumentException ex) {
			// JsonParseException is one, whichever JSON library parses.
			return "Malformed JSON body " + abbreviate(json) + "; expected " + this.shape.expectedBody()
					+ this.shape.emptyBodyMeans();
		}
		Set<String> unknown = new TreeSet<>(fields.keySet());
		List<String> names = this.shape.bodyFields().stream().map(Parameter::name).toList();
		unknown.removeAll(names);
		if (!unknown.isEmpty()) {
			return "Unknown field(s) " + unknown + " in the request body; "
					+ ((names.size() == 1) ? "the only field is " + names.get(0) : "the fields are " + names);
		}
		for (Parameter field : this.shape.bodyFields()) {
			Object value = fields.get(field.name());
			if (value == null) {
				if (field.required()) {
					return "Missing field " + field.name() + " in the request body; expected "
							+ this.shape.expectedBody();
				}
			}
			else if (field.integer() ? !(value instanceof Integer || value instanceof Long)
					: !(value instanceof String)) {
				return field.name() + " must be " + (field.integer() ? "an integer" : "a string") + " but was "
						+ abbreviate(String.valueOf(value));
			}
		}
		return null;
	}

	private static boolean isInteger(String value) {
		try {
			Integer.parseInt(value.strip());
			return true;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	private static String abbreviate(String value) {
		return (value.length() > 60) ? value.substring(0, 60) + "..." : value;
	}

	private static void reject(HttpServletResponse response, String message) throws IOException {
		response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.getWriter().write(ERROR_WRITER.writeToString(Map.of("message", message)));
	}

	/**
	 * A field of a request body or a query parameter.
	 *
	 * @param name its name
	 * @param integer whether it is an integer (otherwise a string)
	 * @param required whether a request must carry it
	 */
	public record Parameter(String name, boolean integer, boolean required) {

		String placeholder() {
			return this.integer ? "<integer>" : "\"...\"";
		}

	}

	/**
	 * What an endpoint's requests may carry.
	 *
	 * @param bodyFields the fields of a {@code POST}'s JSON body
	 * @param emptyBodyMeans what an empty {@code POST} body means, appended to the expected
	 * body in messages (e.g. {@code ", or no body for this node"}); empty if a body is needed
	 * @param deleteParameters the query parameters of a {@code DELETE}
	 */
	public record Shape(List<Parameter> bodyFields, String emptyBodyMeans, List<Parameter> deleteParameters) {

		String expectedBody() {
			StringBuilder expected = new StringBuilder("{");
			for (Parameter field : this.bodyFields) {
				expected.append((expected.length() == 1) ? "" : ", ")
					.append('"')
					.append(field.name())
					.append("\": ")
					.append(field.placeholder());
			}
			return expected.append('}').toString();
		}

	}

	/** The request with its body readable again and, when empty, declared as JSON. */
	private static final class BodyRequest extends HttpServletRequestWrapper {

		private final byte[] body;

		private final boolean declareJson;

		BodyRequest(HttpServletRequest request, byte[] body, boolean declareJson) {
			super(request);
			this.body = body;
			this.declareJson = declareJson;
		}

		@Override
		public ServletInputStream getInputStream() {
			ByteArrayInputStream in = new ByteArrayInputStream(this.body);
			return new ServletInputStream() {

				@Override
				public int read() {
					return in.read();
				}

				@Override
				public int read(byte[] b, int off, int len) {
					return in.read(b, off, len);
				}

				@Override
				public boolean isFinished() {
					return in.available() == 0;
				}

				@Override
				public boolean isReady() {
					return true;
				}

				@Override
				public void setReadListener(ReadListener listener) {
					throw new UnsupportedOperationException();
				}

			};
		}

		@Override
		public int getContentLength() {
			return this.body.length;
		}

		@Override
		public long getContentLengthLong() {
			return this.body.length;
		}

		@Override
		public @Nullable String getContentType() {
			return this.declareJson ? MediaType.APPLICATION_JSON_VALUE : super.getContentType();
		}

		@Override
		public @Nullable String getHeader(String name) {
			return (this.declareJson && HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name))
					? MediaType.APPLICATION_JSON_VALUE : super.getHeader(name);
		}

		@Override
		public Enumeration<String> getHeaders(String name) {
			return (this.declareJson && HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name))
					? Collections.enumeration(Set.of(MediaType.APPLICATION_JSON_VALUE)) : super.getHeaders(name);
		}

		@Override
		public Enumeration<String> getHeaderNames() {
			if (!this.declareJson) {
				return super.getHeaderNames();
			}
			Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
			names.addAll(Collections.list(super.getHeaderNames()));
			names.add(HttpHeaders.CONTENT_TYPE);
			return Collections.enumeration(names);
		}

	}

}
