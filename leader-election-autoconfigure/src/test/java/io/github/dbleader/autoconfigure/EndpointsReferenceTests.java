package io.github.dbleader.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint;
import io.github.dbleader.autoconfigure.endpoint.ErrorDescriptor;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint;
import io.github.dbleader.autoconfigure.partition.PartitionsEndpoint;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/reference/endpoints.md} in step with the endpoints' response records:
 * every field name in its JSON examples is a component of one of them (or one of the
 * example's own names), and every component of them appears in the page.
 */
class EndpointsReferenceTests {

	private static final Path PAGE = Path.of("../docs/reference/endpoints.md");

	private static final List<Class<?>> RESPONSES = List.of(LeaderEndpoint.LeaderDescriptor.class,
			LeaderEndpoint.ElectionDescriptor.class, LeaderEndpoint.CandidateDescriptor.class,
			LeaderEndpoint.RunDescriptor.class, ErrorDescriptor.class, LocksEndpoint.LocksDescriptor.class,
			LocksEndpoint.LockDescriptor.class, LocksEndpoint.RunDescriptor.class,
			LocksEndpoint.ReleaseDescriptor.class, PartitionsEndpoint.PartitionsDescriptor.class,
			PartitionsEndpoint.GroupDescriptor.class, PartitionsEndpoint.PartitionDescriptor.class,
			PartitionsEndpoint.MoveDescriptor.class, JobsEndpoint.JobsDescriptor.class,
			JobsEndpoint.JobDescriptor.class, JobsEndpoint.RunDescriptor.class);

	/**
	 * Names the examples use as map keys (elections, groups, locks, nodes) and the
	 * misspelt request field.
	 */
	private static final Set<String> EXAMPLE_NAMES = Set.of("default", "orders", "sample-report", "node-a", "node-b",
			"node-c", "node");

	private static final Pattern JSON_BLOCK = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL);

	private static final Pattern FIELD = Pattern.compile("\"([A-Za-z-]+)\"\\s*:");

	@Test
	void jsonExamplesUseTheFieldsOfTheResponses() throws Exception {
		String page = Files.readString(PAGE);
		Set<String> components = components();
		Set<String> unknown = new TreeSet<>();
		Matcher block = JSON_BLOCK.matcher(page);
		while (block.find()) {
			Matcher field = FIELD.matcher(block.group(1));
			while (field.find()) {
				String name = field.group(1);
				if (!components.contains(name) && !EXAMPLE_NAMES.contains(name)) {
					unknown.add(name);
				}
			}
		}
		assertThat(unknown).as("fields in docs/reference/endpoints.md that no response has").isEmpty();
	}

	@Test
	void everyFieldOfTheResponsesIsDocumented() throws Exception {
		String page = Files.readString(PAGE);
		assertThat(components()).as("response fields that docs/reference/endpoints.md does not name")
			.allSatisfy((component) -> assertThat(page).contains(component));
	}

	private static Set<String> components() {
		Set<String> names = new LinkedHashSet<>();
		for (Class<?> response : RESPONSES) {
			Arrays.stream(response.getRecordComponents()).forEach((component) -> names.add(component.getName()));
		}
		return names;
	}

}
