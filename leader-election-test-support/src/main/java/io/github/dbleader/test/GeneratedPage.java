package io.github.dbleader.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A documentation page that the build generates from the code and checks in: a test
 * renders it, and fails when the committed page differs, printing how to regenerate it;
 * run with {@code -D}{@value #UPDATE}{@code =true}, the test rewrites the page instead.
 */
public final class GeneratedPage {

	/** The system property that makes the check rewrite the page. */
	public static final String UPDATE = "leader-election.docs.update";

	private GeneratedPage() {
	}

	/**
	 * Check a committed page against what the code generates, or rewrite it.
	 * @param page the committed page
	 * @param generated what the code generates
	 * @param source what it is generated from, for the message
	 * @param regenerate the command that rewrites it, for the message
	 * @throws IOException if the page cannot be read or written
	 */
	public static void check(Path page, String generated, String source, String regenerate) throws IOException {
		if (Boolean.getBoolean(UPDATE)) {
			Files.writeString(page, generated);
		}
		String name = "docs/" + page.getParent().getFileName() + "/" + page.getFileName();
		if (!Files.exists(page)) {
			throw new AssertionError(name + " is missing; generate it from " + source + " with\n  " + regenerate);
		}
		String committed = Files.readString(page);
		if (!committed.equals(generated)) {
			throw new AssertionError(name + " differs from " + source + " (" + firstDifference(committed, generated)
					+ "); regenerate it with\n  " + regenerate);
		}
	}

	/** Where two texts first differ, by line, for a message. */
	private static String firstDifference(String committed, String generated) {
		List<String> was = committed.lines().toList();
		List<String> is = generated.lines().toList();
		for (int line = 0; line < Math.max(was.size(), is.size()); line++) {
			String before = (line < was.size()) ? was.get(line) : "<end of page>";
			String after = (line < is.size()) ? is.get(line) : "<end of page>";
			if (!before.equals(after)) {
				return "line " + (line + 1) + " is\n  " + before + "\nand would be\n  " + after + "\n";
			}
		}
		return "line endings differ";
	}

}
