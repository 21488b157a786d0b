package io.github.dbleader.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Code blocks of the docs that are marked {@code <!-- snippet: path -->} are copies of
 * files the build compiles or loads (the tutorial's classes, properties and schema in
 * this module's test sources, run by {@code TutorialTests}): each block must be identical
 * to its file.
 */
class DocsSnippetsTests {

	private static final Pattern SNIPPET = Pattern.compile("<!-- snippet: (\\S+) -->\\n+```[a-z]*\\n(.*?)```\\n",
			Pattern.DOTALL);

	@Test
	void markedCodeBlocksAreTheFilesTheBuildCompiles() throws Exception {
		List<String> differing = new ArrayList<>();
		int checked = 0;
		for (Path page : MarkdownPages.all()) {
			Matcher snippet = SNIPPET.matcher(MarkdownPages.read(page));
			while (snippet.find()) {
				checked++;
				Path file = MarkdownPages.ROOT.resolve(snippet.group(1));
				if (!Files.exists(file)) {
					differing.add(MarkdownPages.relative(page) + ": " + snippet.group(1) + " does not exist");
				}
				else if (!Files.readString(file).equals(snippet.group(2))) {
					differing.add(MarkdownPages.relative(page) + ": the block differs from " + snippet.group(1));
				}
			}
		}
		assertThat(checked).as("snippets checked").isGreaterThanOrEqualTo(4);
		assertThat(differing).isEmpty();
	}

}
