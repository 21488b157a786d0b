package io.github.dbleader.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The safety invariants that comments, messages and pages cite by number (I1, I2, ...)
 * resolve in the repository: docs/explanation/invariants.md has a section for every
 * number cited anywhere in the sources and Markdown, a citation in Markdown is a link to
 * its section, every link into the page names an anchor it has, and no source points to
 * the design document that the project never had.
 */
class InvariantCitationsTests {

	private static final Path INVARIANTS = MarkdownPages.ROOT.resolve("docs/explanation/invariants.md");

	/** A citation: {@code I} and the invariant's number, as a word of its own. */
	private static final Pattern CITATION = Pattern.compile("\\bI([1-9][0-9]?)\\b");

	/**
	 * A section of the invariants page:
	 * {@code ## I3. Only the database grants leadership}.
	 */
	private static final Pattern SECTION = Pattern.compile("^## I([1-9][0-9]?)\\. \\S.*$", Pattern.MULTILINE);

	/**
	 * The name of the design document outside the repository that comments used to cite.
	 */
	private static final Pattern OUTSIDE = Pattern.compile("\\bDESIGN(?:\\.md)?\\b");

	/** The kinds of files a citation may be in. */
	private static final List<String> SOURCES = List.of(".md", ".java", ".sql", ".properties", ".yml", ".yaml", ".xml");

	/** Directories that hold no sources: build output, version control, the wrapper. */
	private static final Set<String> NOT_SOURCES = Set.of(".git", ".mvn", "target", "node_modules");

	@Test
	void pageHasASectionWithAShortAnchorForEachOfTheTenInvariants() {
		List<Integer> sections = sections();
		assertThat(sections).as("sections of %s, in order", MarkdownPages.relative(INVARIANTS))
			.containsExactlyElementsOf(IntStream.rangeClosed(1, 10).boxed().toList());
		Set<String> anchors = DocsLinksTests.anchorsOf(INVARIANTS);
		for (int invariant : sections) {
			assertThat(anchors).as("anchors of %s", MarkdownPages.relative(INVARIANTS)).contains("i" + invariant);
		}
	}

	@Test
	void everyCitedInvariantHasASection() {
		Set<Integer> sections = new TreeSet<>(sections());
		List<String> unresolved = new ArrayList<>();
		int citations = 0;
		for (Path file : sources()) {
			String text = MarkdownPages.read(file);
			Matcher citation = CITATION.matcher(text);
			while (citation.find()) {
				citations++;
				if (!sections.contains(Integer.parseInt(citation.group(1)))) {
					unresolved.add(where(file, text, citation.start()) + " cites " + citation.group()
							+ ", which has no section in " + MarkdownPages.relative(INVARIANTS));
				}
			}
		}
		assertThat(citations).as("citations found in the sources").isGreaterThan(100);
		assertThat(unresolved).as("citations without a section").isEmpty();
	}

	@Test
	void everyCitationInMarkdownIsALinkToItsSection() {
		List<String> unlinked = new ArrayList<>();
		for (Path page : markdownPages()) {
			String text = DocsLinksTests.withoutCode(MarkdownPages.read(page));
			List<Link> links = links(page, text);
			Matcher citation = CITATION.matcher(text);
			while (citation.find()) {
				if (page.equals(INVARIANTS) && isSectionHeading(text, citation.start())) {
					continue;
				}
				int invariant = Integer.parseInt(citation.group(1));
				Link link = links.stream()
					.filter((candidate) -> candidate.covers(citation.start()))
					.findFirst()
					.orElse(null);
				if (link == null) {
					unlinked.add(where(page, text, citation.start()) + ": " + citation.group()
							+ " is not a link to its section of " + MarkdownPages.relative(INVARIANTS));
				}
				else if (!INVARIANTS.equals(link.file()) || !isAnchorOf(link.anchor(), invariant)) {
					unlinked.add(where(page, text, citation.start()) + ": " + citation.group() + " links to "
							+ link.target() + ", not to its section of " + MarkdownPages.relative(INVARIANTS));
				}
			}
		}
		assertThat(unlinked).as("citations in Markdown that are not links to their section").isEmpty();
	}

	@Test
	void everyLinkIntoTheInvariantsNamesAnAnchorThePageHas() {
		Set<String> anchors = DocsLinksTests.anchorsOf(INVARIANTS);
		List<String> broken = new ArrayList<>();
		int checked = 0;
		for (Path page : markdownPages()) {
			String text = DocsLinksTests.withoutCode(MarkdownPages.read(page));
			for (Link link : links(page, text)) {
				if (INVARIANTS.equals(link.file()) && link.anchor() != null) {
					checked++;
					if (!anchors.contains(link.anchor())) {
						broken.add(where(page, text, link.start()) + ": " + link.target());
					}
				}
			}
		}
		assertThat(checked).as("links into %s", MarkdownPages.relative(INVARIANTS)).isGreaterThan(20);
		assertThat(broken).as("links to anchors the page does not have").isEmpty();
	}

	@Test
	void noSourceCitesTheDesignDocumentOutsideTheRepository() {
		List<String> outside = new ArrayList<>();
		for (Path file : sources()) {
			String text = MarkdownPages.read(file);
			Matcher name = OUTSIDE.matcher(text);
			while (name.find()) {
				outside.add(where(file, text, name.start()) + ": " + name.group() + " is not in the repository; cite "
						+ MarkdownPages.relative(INVARIANTS));
			}
		}
		assertThat(outside).as("citations of a document outside the repository").isEmpty();
	}

	/** The numbers of the invariants page's sections, in the page's order. */
	private static List<Integer> sections() {
		Matcher section = SECTION.matcher(DocsLinksTests.withoutCode(MarkdownPages.read(INVARIANTS)));
		List<Integer> sections = new ArrayList<>();
		while (section.find()) {
			sections.add(Integer.parseInt(section.group(1)));
		}
		return sections;
	}

	/**
	 * Whether an anchor of the invariants page is one of an invariant's section:
	 * {@code i3} or {@code i3-...}.
	 */
	private static boolean isAnchorOf(String anchor, int invariant) {
		return anchor != null && (anchor.equals("i" + invariant) || anchor.startsWith("i" + invariant + "-"))
				&& DocsLinksTests.anchorsOf(INVARIANTS).contains(anchor);
	}

	private static boolean isSectionHeading(String text, int offset) {
		int start = text.lastIndexOf('\n', offset) + 1;
		int end = text.indexOf('\n', offset);
		return SECTION.matcher(text.substring(start, (end < 0) ? text.length() : end)).matches();
	}

	/** The page's links, with the file and anchor each points to. */
	private static List<Link> links(Path page, String text) {
		List<Link> links = new ArrayList<>();
		Matcher link = DocsLinksTests.LINK.matcher(text);
		while (link.find()) {
			String target = link.group(1);
			if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
				continue;
			}
			int hash = target.indexOf('#');
			String file = (hash < 0) ? target : target.substring(0, hash);
			links.add(new Link(link.start(), link.end(), target,
					file.isEmpty() ? page : page.getParent().resolve(file).normalize(),
					(hash < 0) ? null : target.substring(hash + 1)));
		}
		return links;
	}

	private static List<Path> markdownPages() {
		return sources().stream().filter((file) -> file.toString().endsWith(".md")).toList();
	}

	/** Every file of the repository that may cite an invariant, in path order. */
	private static List<Path> sources() {
		List<Path> sources = new ArrayList<>();
		try {
			Files.walkFileTree(MarkdownPages.ROOT, new SimpleFileVisitor<>() {

				@Override
				public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
					return NOT_SOURCES.contains(dir.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE
							: FileVisitResult.CONTINUE;
				}

				@Override
				public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
					if (SOURCES.stream().anyMatch(file.toString()::endsWith)) {
						sources.add(file);
					}
					return FileVisitResult.CONTINUE;
				}

			});
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		sources.sort(null);
		return sources;
	}

	private static String where(Path file, String text, int offset) {
		long line = text.substring(0, offset).chars().filter((c) -> c == '\n').count() + 1;
		return MarkdownPages.relative(file) + ":" + line;
	}

	/**
	 * A link of a page: where it is in the page's text, what it says, and the file and
	 * anchor it points to.
	 */
	private record Link(int start, int end, String target, Path file, String anchor) {

		boolean covers(int offset) {
			return this.start <= offset && offset < this.end;
		}

	}

}
