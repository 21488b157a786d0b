package io.github.dbleader.autoconfigure.endpoint;

import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EndpointRequestFilter} of the leader endpoint: bodies the actuator would bind wrongly or without a
 * reason are rejected with a message; valid ones pass through unchanged.
 */
class EndpointRequestFilterTests {

	private final EndpointRequestFilter filter = new EndpointRequestFilter(LeaderEndpointManagementContextConfiguration.SHAPE);

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "{\"nodeId\":|Malformed JSON body", "nodeId=b|Malformed JSON body",
			"{\"node\":\"b\"}|Unknown field(s) [node]", "{\"nodeId\":\"b\",\"force\":true}|Unknown field(s) [force]",
			"{\"nodeId\":42}|nodeId must be a string" })
	void rejectsWithAMessage(String body, String message) throws Exception {
		MockHttpServletRequest request = post(body, "application/json");
		MockHttpServletResponse response = new MockHttpServletResponse();
		MockFilterChain chain = new MockFilterChain();
		this.filter.doFilter(request, response, chain);
		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(response.getContentType()).startsWith("application/json");
		assertThat(response.getContentAsString()).startsWith("{\"message\":\"").contains(message.replace("\"", "\\\""));
		assertThat(chain.getRequest()).as("the endpoint is not called").isNull();
	}

	@Test
	void rejectsOverlongBodies() throws Exception {
		String body = "{\"nodeId\":\"" + "n".repeat(EndpointRequestFilter.MAX_BODY_BYTES) + "\"}";
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.filter.doFilter(post(body, "application/json"), response, new MockFilterChain());
		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(response.getContentAsString()).contains("longer than 4096 bytes");
	}

	@Test
	void passesAValidBodyOnUnchanged() throws Exception {
		MockFilterChain chain = new MockFilterChain();
		this.filter.doFilter(post("{\"nodeId\":\"b\"}", "application/json"), new MockHttpServletResponse(), chain);
		HttpServletRequest passed = (HttpServletRequest) chain.getRequest();
		assertThat(passed.getContentType()).isEqualTo("application/json");
		assertThat(new String(passed.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
			.isEqualTo("{\"nodeId\":\"b\"}");
	}

	@Test
	void declaresAnEmptyBodyWithoutContentTypeAsJson() throws Exception {
		MockFilterChain chain = new MockFilterChain();
		this.filter.doFilter(post("", null), new MockHttpServletResponse(), chain);
		HttpServletRequest passed = (HttpServletRequest) chain.getRequest();
		assertThat(passed.getContentType()).isEqualTo("application/json");
		assertThat(passed.getHeader("Content-Type")).isEqualTo("application/json");
		assertThat(passed.getInputStream().readAllBytes()).isEmpty();
	}

	@Test
	void leavesOtherMethodsAlone() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/actuator/leader/default");
		MockFilterChain chain = new MockFilterChain();
		this.filter.doFilter(request, new MockHttpServletResponse(), chain);
		assertThat(chain.getRequest()).isSameAs(request);
	}

	private static MockHttpServletRequest post(String body, String contentType) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/actuator/leader/default");
		request.setContent(body.getBytes(StandardCharsets.UTF_8));
		if (contentType != null) {
			request.setContentType(contentType);
		}
		return request;
	}

}
