package io.github.dbleader.shedlock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of {@code docs/reference/properties.md} for this module's properties, which
 * the autoconfigure module's {@code PropertiesReferenceTests} renders from
 * {@link ShedLockBridgeProperties}'s source (this module is built after it), are those of
 * the configuration metadata that the annotation processor generated here: same names,
 * defaults and descriptions.
 */
class ShedLockBridgePropertiesDocsTests {

	private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

	private static final Path PAGE = Path.of("../docs/reference/properties.md");

	@Test
	void thePropertiesPageListsThisModulesMetadata() throws Exception {
		List<Map<String, Object>> properties = JsonPath.read(Files.readString(METADATA), "$.properties");
		assertThat(properties).hasSizeGreaterThanOrEqualTo(7);
		String page = Files.readString(PAGE);
		List<String> documented = page.lines()
			.filter((line) -> line.startsWith("| `leader-election.shedlock."))
			.toList();
		assertThat(documented).as("rows of leader-election.shedlock.* in %s", PAGE).hasSameSizeAs(properties);
		for (Map<String, Object> property : properties) {
			Object defaultValue = property.get("defaultValue");
			assertThat(documented).as("row of %s", property.get("name"))
				.anyMatch((line) -> line.matches(Pattern.quote("| `" + property.get("name") + "` | ") + ".*"
						+ Pattern.quote(" | " + ((defaultValue != null) ? "`" + defaultValue + "`" : "-") + " | "
								+ property.get("description") + " |")));
		}
	}

}
