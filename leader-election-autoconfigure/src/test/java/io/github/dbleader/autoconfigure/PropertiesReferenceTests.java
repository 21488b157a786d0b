package io.github.dbleader.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/reference/properties.md} generated from the configuration metadata:
 * fails when the committed page differs from what {@link PropertiesReference} renders, and
 * rewrites it instead with {@code -Dleader-election.docs.update=true}.
 */
class PropertiesReferenceTests {

	private static final Path PAGE = Path.of("../docs/reference/properties.md");

	@Test
	void committedPropertiesPageIsTheOneTheMetadataGenerates() throws Exception {
		String generated = new PropertiesReference(
				Path.of("target/classes/META-INF/spring-configuration-metadata.json"), Path.of("src/main/java"))
			.render();
		if (Boolean.getBoolean("leader-election.docs.update")) {
			Files.writeString(PAGE, generated);
		}
		assertThat(PAGE).as("docs/reference/properties.md").exists();
		assertThat(Files.readString(PAGE))
			.as("docs/reference/properties.md differs from the configuration metadata; regenerate it with%n  %s%n",
					PropertiesReference.REGENERATE)
			.isEqualTo(generated);
	}

}
