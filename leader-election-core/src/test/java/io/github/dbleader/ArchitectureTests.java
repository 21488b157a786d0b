package io.github.dbleader;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * Keeps the election core free of Spring Boot and the packages free of cycles.
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

	@Test
	void packagesAreFreeOfCycles() {
		slices().matching("io.github.dbleader.(**)").should().beFreeOfCycles().check(classes);
	}

}
