package io.github.dbleader.election.observation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.ObservationConvention;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/reference/observations.md} in step with the observations: its table
 * names each observation with its default convention's name and its low- and
 * high-cardinality key names, and the page names every outcome.
 */
class ObservationsReferenceTests {

	private static final Path PAGE = Path.of("../docs/reference/observations.md");

	/** A row of the observations' table: name, contextual name, low, high, one per. */
	private static final Pattern ROW = Pattern
		.compile("^\\| `(leader\\.election\\.[a-z.]+)` \\|[^|]*\\|([^|]*)\\|([^|]*)\\|[^|]*\\|$", Pattern.MULTILINE);

	private static final Pattern QUOTED = Pattern.compile("`([a-z.]+)`");

	@Test
	void thePageNamesEachObservationWithItsKeys() throws Exception {
		Map<String, List<Set<String>>> documented = new LinkedHashMap<>();
		Matcher row = ROW.matcher(Files.readString(PAGE));
		while (row.find()) {
			documented.put(row.group(1), List.of(quoted(row.group(2)), quoted(row.group(3))));
		}
		Map<String, List<Set<String>>> observations = new LinkedHashMap<>();
		for (LeaderElectionObservationDocumentation observation : LeaderElectionObservationDocumentation.values()) {
			ObservationConvention<?> convention = observation.getDefaultConvention()
				.getDeclaredConstructor()
				.newInstance();
			observations.put(convention.getName(), List.of(keys(observation.getLowCardinalityKeyNames()),
					keys(observation.getHighCardinalityKeyNames())));
		}
		assertThat(documented).as("the observations, low- and high-cardinality keys, of the page")
			.isEqualTo(observations);
	}

	@Test
	void thePageNamesEveryOutcome() throws Exception {
		String page = Files.readString(PAGE);
		Stream
			.of(LeaderOnlyCallContext.Outcome.values(), LockCallContext.Outcome.values(),
					FencedTransactionContext.Outcome.values(), LeadershipChangeContext.Change.values())
			.flatMap(Arrays::stream)
			.map((outcome) -> "`" + outcome.name().toLowerCase(Locale.ROOT) + "`")
			.forEach((outcome) -> assertThat(page).contains(outcome));
	}

	private static Set<String> quoted(String cell) {
		Set<String> names = new TreeSet<>();
		Matcher quoted = QUOTED.matcher(cell);
		while (quoted.find()) {
			names.add(quoted.group(1));
		}
		return names;
	}

	private static Set<String> keys(KeyName[] keyNames) {
		Set<String> names = new TreeSet<>();
		Arrays.stream(keyNames).map(KeyName::asString).forEach(names::add);
		return names;
	}

}
