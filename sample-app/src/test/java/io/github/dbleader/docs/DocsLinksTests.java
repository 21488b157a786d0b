package io.github.dbleader.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of README.md, CHANGELOG.md and docs/ resolves: the file or
 * directory exists, and an anchor ({@code page.md#section}, {@code #section}) names a
 * heading of the page (GitHub's slugs) or an {@code <a id>} in it. Links inside code are
 * not links.
 */
class DocsLinksTests {

	static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*])*]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*$", Pattern.MULTILINE);

	private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	@Test
	void everyRelativeLinkResolves() {
		List<String> broken = new ArrayList<>();
		int checked = 0;
		for (Path page : MarkdownPages.all()) {
			Matcher link = LINK.matcher(withoutCode(MarkdownPages.read(page)));
			while (link.find()) {
				String target = link.group(1);
				if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
					continue;
				}
				checked++;
				String problem = problem(page, target);
				if (problem != null) {
					broken.add(MarkdownPages.relative(page) + ": " + target + " (" + problem + ")");
				}
			}
		}
		assertThat(checked).as("relative links checked").isGreaterThan(20);
		assertThat(broken).as("broken links").isEmpty();
	}

	@Test
	void slugsAreGitHubs() {
		assertThat(slug("Leader or lock?")).isEqualTo("leader-or-lock");
		assertThat(slug("`@LeaderOnly`")).isEqualTo("leaderonly");
		assertThat(slug("Timing and the failure model")).isEqualTo("timing-and-the-failure-model");
		assertThat(slug("Move from ShedLock (`@SchedulerLock`)")).isEqualTo("move-from-shedlock-schedulerlock");
		assertThat(slug("[Link](x.md) in a heading")).isEqualTo("link-in-a-heading");
	}

	private String problem(Path page, String target) {
		int hash = target.indexOf('#');
		String file = (hash < 0) ? target : target.substring(0, hash);
		String anchor = (hash < 0) ? null : target.substring(hash + 1);
		Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
		if (!resolved.startsWith(MarkdownPages.ROOT)) {
			return "outside the repository";
		}
		if (!Files.exists(resolved)) {
			return "no such file";
		}
		if (anchor != null && resolved.toString().endsWith(".md")
				&& !this.anchors.computeIfAbsent(resolved, DocsLinksTests::anchorsOf).contains(anchor)) {
			return "no such anchor";
		}
		return null;
	}

	static Set<String> anchorsOf(Path page) {
		String text = withoutCode(MarkdownPages.read(page));
		Set<String> anchors = new HashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		Matcher heading = HEADING.matcher(text);
		while (heading.find()) {
			String slug = slug(heading.group(1));
			int count = seen.merge(slug, 1, Integer::sum);
			anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
		}
		Matcher html = HTML_ANCHOR.matcher(text);
		while (html.find()) {
			anchors.add(html.group(1));
		}
		return anchors;
	}

	/**
	 * GitHub's heading anchors: the text without markup, lower case, punctuation dropped,
	 * spaces as hyphens.
	 */
	static String slug(String heading) {
		String text = heading.replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
		return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
	}

	/**
	 * The page with fenced code blocks and inline code blanked out, line numbers kept.
	 */
	static String withoutCode(String text) {
		StringBuilder result = new StringBuilder();
		boolean fenced = false;
		for (String line : text.split("\n", -1)) {
			if (line.strip().startsWith("```")) {
				fenced = !fenced;
				result.append('\n');
				continue;
			}
			result.append(fenced ? "" : line.replaceAll("`[^`]*`", (line.startsWith("#") ? "$0" : "``"))).append('\n');
		}
		return result.toString();
	}

}
