package io.github.dbleader.election;

import org.junit.jupiter.api.Test;

import org.springframework.core.SpringVersion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's tests run twice, on Spring Framework 7 and on 6.2 (leader-election-core's
 * spring-framework-6 run): each run says which Framework it expects, and this checks that
 * the class path has it, so that a run meant for 6.2 cannot quietly run on 7.
 */
class SpringFrameworkVersionTests {

	@Test
	void classPathHasTheExpectedSpringFramework() {
		String expected = System.getProperty("leader-election.test.spring-framework-version");
		assertThat(expected).as("leader-election.test.spring-framework-version").isNotBlank();
		assertThat(SpringVersion.getVersion()).startsWith(expected);
	}

}
