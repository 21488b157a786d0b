package io.github.dbleader.autoconfigure;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The auto-configuration logs through SLF4J, as the election core does: one logging API,
 * so that a user configures one set of logger names and levels for the whole starter.
 */
class LoggingApiTests {

	@Test
	void autoConfigurationLogsThroughSlf4jOnly() {
		noClasses().that()
			.resideInAPackage("io.github.dbleader.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.apache.commons.logging..")
			.check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
				.importPackages("io.github.dbleader.autoconfigure"));
	}

}
