package io.github.dbleader.autoconfigure.endpoint;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
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
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Checks the body of a {@code POST} to the {@code leader} endpoint before the actuator binds
 * it, because the actuator ignores what it cannot bind: a malformed body would get a 400
 * without a reason, and a misspelt field (e.g. {@code {"node": "b"}}) would silently mean
 * "this node". Either now gets a 400 whose body says what was wrong. A {@code POST}
 * without a body needs no content type (so a plain {@code curl -X POST} forces leadership to
 * the node that receives it).
 */
class LeaderEndpointRequestFilter extends OncePerRequestFilter {

	static final int MAX_BODY_BYTES = 4096;

	private static final Set<String> FIELDS = Set.of("nodeId");

	private static final JsonWriter<Map<String, Object>> ERROR_WRITER = JsonWriter.standard();

	private final JsonParser parser = JsonParserFactory.getJsonParser();

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !"POST".equals(request.getMethod());
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		byte[] body = request.getInputStream().readNBytes(MAX_BODY_BYTES + 1);
		if (body.length > MAX_BODY_BYTES) {
			reject(response, "Request body is longer than " + MAX_BODY_BYTES + " bytes; expected {\"nodeId\": \"...\"}");
			return;
		}
		String json = new String(body, StandardCharsets.UTF_8).strip();
		if (json.isEmpty()) {
			chain.doFilter(new BodyRequest(request, body, request.getContentType() == null), response);
			return;
		}
		String problem = problem(json);
		if (problem != null) {
			reject(response, problem);
			return;
		}
		chain.doFilter(new BodyRequest(request, body, false), response);
	}

	private @Nullable String problem(String json) {
		Map<String, Object> fields;
		try {
			fields = this.parser.parseMap(json);
		}
		catch (IllegalArgumentException ex) {
			// JsonParseException is one, whichever JSON library parses.
			return "Malformed JSON body " + abbreviate(json)
					+ "; expected {\"nodeId\": \"...\"}, or no body for this node";
		}
		Set<String> unknown = new TreeSet<>(fields.keySet());
		unknown.removeAll(FIELDS);
		if (!unknown.isEmpty()) {
			return "Unknown field(s) " + unknown + " in the request body; the only field is nodeId";
		}
		Object nodeId = fields.get("nodeId");
		if (nodeId != null && !(nodeId instanceof String)) {
			return "nodeId must be a string but was " + nodeId;
		}
		return null;
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
