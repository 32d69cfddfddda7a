package io.github.lettucetuning;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * Keeps the folder layout a map of the architecture: runtime types in plain packages that
 * users may call without Spring's auto-configuration, wiring under {@code autoconfigure},
 * and no package that needs another which needs it back.
 */
class ArchitectureTests {

	private static final String ROOT = "io.github.lettucetuning";

	private static JavaClasses classes;

	// Main classes only, wherever the build puts them: the JDK 25 pass of `make test`
	// builds into target/java25, which ArchUnit's predefined test-class patterns do not
	// know.
	@BeforeAll
	static void importMainClasses() {
		classes = new ClassFileImporter().withImportOption((location) -> !location.contains("/test-classes/"))
			.importPackages(ROOT);
	}

	@Test
	void runtimePackagesDoNotDependOnTheWiring() {
		noClasses().that()
			.resideInAPackage(ROOT + "..")
			.and()
			.resideOutsideOfPackage(ROOT + ".autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage(ROOT + ".autoconfigure..")
			.because("runtime types (connection, timeout, resilience, advice, endpoint, ...) must work "
					+ "without Spring Boot's auto-configuration")
			.check(classes);
	}

	@Test
	void runtimePackagesAreFreeOfCycles() {
		slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(classes);
	}

	@Test
	void wiringPackagesAreFreeOfCycles() {
		slices().matching(ROOT + ".autoconfigure.(*)..").should().beFreeOfCycles().check(classes);
	}

}
