package io.github.dbleader;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * Keeps the election core free of Spring Boot, on one logging API, and its packages free
 * of cycles.
 */
class ArchitectureTests {

	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.dbleader");

	@Test
	void electionCoreDoesNotDependOnSpringBoot() {
		noClasses().that()
			.resideInAPackage("io.github.dbleader.election..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.boot..")
			.check(classes);
	}

	@Test
	void electionCoreDoesNotDependOnTheBootGlue() {
		noClasses().that()
			.resideInAPackage("io.github.dbleader.election..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("io.github.dbleader.autoconfigure..")
			.check(classes);
	}

	/**
	 * One logging API across the starter (the auto-configuration's LoggingApiTests says
	 * the same): a user sets levels for one family of logger names, and the core's lines
	 * come through SLF4J's binding whatever bridge the application has for Commons
	 * Logging.
	 */
	@Test
	void electionCoreLogsThroughSlf4jOnly() {
		noClasses().that()
			.resideInAPackage("io.github.dbleader.election..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.apache.commons.logging..")
			.check(classes);
	}

	@Test
	void packagesAreFreeOfCycles() {
		slices().matching("io.github.dbleader.(**)").should().beFreeOfCycles().check(classes);
	}

}
