package io.github.dbleader.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property, meter and event that a page of the docs names exists: properties as the
 * generated reference lists them (docs/reference/properties.md, which
 * {@code PropertiesReferenceTests} keeps equal to the configuration metadata), meters as
 * docs/reference/metrics.md lists them (which {@code MetricsReferenceTests} keeps equal
 * to the meters a node registers) or as docs/reference/observations.md lists the
 * observations (which {@code ObservationsReferenceTests} keeps equal to the code's),
 * events as classes of the project's main sources.
 */
class DocsNamesTests {

	private static final Pattern PROPERTY = Pattern.compile("`(leader-election\\.[a-z0-9.\\[\\]-]*[a-z0-9\\]])");

	private static final Pattern METER = Pattern.compile("`(leader\\.election\\.[a-z.]*[a-z])");

	private static final Pattern EVENT = Pattern.compile("\\b((?:Leader|Leadership|Partition)[A-Za-z]*Event)\\b");

	@Test
	void everyPropertyNamedInTheDocsExists() {
		Set<String> documented = names(Pattern.compile("^\\| `(leader-election\\.[^`]+)`", Pattern.MULTILINE),
				MarkdownPages.read(MarkdownPages.ROOT.resolve("docs/reference/properties.md")));
		assertThat(documented).as("properties in docs/reference/properties.md").hasSizeGreaterThan(20);
		List<String> unknown = new ArrayList<>();
		for (Path page : MarkdownPages.all()) {
			for (String property : names(PROPERTY, MarkdownPages.read(page))) {
				String name = property.replaceAll("\\[\\d+]$", "");
				if (name.endsWith(".json") || name.endsWith(".yml")) {
					// A file of the project (the dashboard, the rules), not a property.
					continue;
				}
				if (!documented.contains(name) && documented.stream().noneMatch((known) -> known.startsWith(name + "."))
						&& documented.stream().noneMatch((known) -> matchesPlaceholders(known, name))) {
					unknown.add(MarkdownPages.relative(page) + ": " + property);
				}
			}
		}
		assertThat(unknown).as("properties the docs name that the configuration metadata lacks").isEmpty();
	}

	@Test
	void everyMeterNamedInTheDocsExists() {
		Pattern row = Pattern.compile("^\\| `(leader\\.election\\.[^`]+)`", Pattern.MULTILINE);
		Set<String> documented = names(row,
				MarkdownPages.read(MarkdownPages.ROOT.resolve("docs/reference/metrics.md")));
		assertThat(documented).as("meters in docs/reference/metrics.md").hasSizeGreaterThan(10);
		Set<String> observations = names(row,
				MarkdownPages.read(MarkdownPages.ROOT.resolve("docs/reference/observations.md")));
		assertThat(observations).as("observations in docs/reference/observations.md").hasSize(4);
		documented.addAll(observations);
		List<String> unknown = new ArrayList<>();
		for (Path page : MarkdownPages.all()) {
			for (String meter : names(METER, MarkdownPages.read(page))) {
				if (!documented.contains(meter)) {
					unknown.add(MarkdownPages.relative(page) + ": " + meter);
				}
			}
		}
		assertThat(unknown).as("meters the docs name that no node registers").isEmpty();
	}

	@Test
	void everyEventNamedInTheDocsIsAClassOfTheProject() {
		Set<String> classes = mainClasses();
		List<String> unknown = new ArrayList<>();
		for (Path page : MarkdownPages.all()) {
			for (String event : names(EVENT, MarkdownPages.read(page))) {
				if (!classes.contains(event)) {
					unknown.add(MarkdownPages.relative(page) + ": " + event);
				}
			}
		}
		assertThat(classes).contains("LeadershipGrantedEvent", "PartitionGainedEvent");
		assertThat(unknown).as("events the docs name that the main sources lack").isEmpty();
	}

	/**
	 * Whether a property of a map (its key written as {@code <group>} in the reference)
	 * names this one: {@code leader-election.partitions.orders.count} for
	 * {@code leader-election.partitions.<group>.count}.
	 */
	private static boolean matchesPlaceholders(String known, String name) {
		if (!known.contains("<")) {
			return false;
		}
		String regex = Pattern.quote(known).replaceAll("<[a-z-]+>", "\\\\E[a-z0-9_.-]+\\\\Q");
		return name.matches(regex);
	}

	private static Set<String> names(Pattern pattern, String text) {
		Set<String> names = new TreeSet<>();
		Matcher matcher = pattern.matcher(text);
		while (matcher.find()) {
			names.add(matcher.group(1));
		}
		return names;
	}

	/** The simple names of the classes in every module's main sources. */
	private static Set<String> mainClasses() {
		Set<String> classes = new TreeSet<>();
		try (Stream<Path> files = Files.walk(MarkdownPages.ROOT)) {
			files.filter((file) -> file.toString().endsWith(".java"))
				.filter((file) -> file.toString().contains("/src/main/java/"))
				.forEach((file) -> classes.add(file.getFileName().toString().replace(".java", "")));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return classes;
	}

}
