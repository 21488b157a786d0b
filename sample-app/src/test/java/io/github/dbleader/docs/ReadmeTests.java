package io.github.dbleader.docs;

import java.nio.file.Files;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README.md stays the front door: short, and with the test command CI runs.
 */
class ReadmeTests {

	private final String readme = MarkdownPages.read(MarkdownPages.ROOT.resolve("README.md"));

	@Test
	void staysShort() {
		assertThat(this.readme.lines().count()).as("lines of README.md; details belong in docs/")
			.isLessThanOrEqualTo(300);
	}

	@Test
	void testCommandIsTheOneCiRuns() throws Exception {
		// CI adds only -B (batch mode: no colours or progress), which changes no test.
		List<String> ci = Files.readAllLines(MarkdownPages.ROOT.resolve(".ci/run"));
		assertThat(ci).as(".ci/run's main run").contains("./mvnw -B verify");
		String quickStart = this.readme.substring(this.readme.indexOf("## Quick start"),
				this.readme.indexOf("## The smallest complete use"));
		assertThat(quickStart).as("README's quick start")
			.contains("\n./mvnw verify ")
			.contains("`.ci/run` calls `./mvnw -B verify`");
	}

}
