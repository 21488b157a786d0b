package io.github.dbleader.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The project's Markdown pages that the docs tests check: README.md, CHANGELOG.md and
 * every page under docs/, found from the sample module's directory (where Maven runs its
 * tests).
 */
final class MarkdownPages {

	static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private MarkdownPages() {
	}

	static List<Path> all() {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
		try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return pages;
	}

	static String read(Path page) {
		try {
			return Files.readString(page);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String relative(Path page) {
		return ROOT.relativize(page).toString();
	}

}
