package io.github.dbleader.autoconfigure;

import java.nio.file.Path;

import io.github.dbleader.test.GeneratedPage;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/reference/properties.md} generated from the configuration metadata:
 * fails when the committed page differs from what {@link PropertiesReference} renders,
 * and rewrites it instead with {@code -Dleader-election.docs.update=true}.
 */
class PropertiesReferenceTests {

	private static final Path PAGE = Path.of("../docs/reference/properties.md");

	@Test
	void committedPropertiesPageIsTheOneTheMetadataGenerates() throws Exception {
		String generated = new PropertiesReference(
				Path.of("target/classes/META-INF/spring-configuration-metadata.json"), Path.of("src/main/java"))
			.render();
		GeneratedPage.check(PAGE, generated, "the configuration metadata", PropertiesReference.REGENERATE);
	}

}
