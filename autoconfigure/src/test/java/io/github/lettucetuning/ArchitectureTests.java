package io.github.lettucetuning;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * Keeps the folder layout a map of the architecture: runtime types in plain packages that
 * users may call without Spring's auto-configuration, wiring under {@code autoconfigure},
 * and no package that needs another which needs it back.
 */
class ArchitectureTests {

	private static final String ROOT = "io.github.lettucetuning";

	private static final String ENTRY = "LettuceTuningAutoConfiguration";

	private static final SliceAssignment WIRING_SLICES = new SliceAssignment() {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			String wiring = ROOT + ".autoconfigure";
			String pkg = javaClass.getPackageName();
			if (pkg.equals(wiring)) {
				boolean entry = javaClass.getName().equals(wiring + "." + ENTRY)
						|| javaClass.getName().startsWith(wiring + "." + ENTRY + "$");
				return SliceIdentifier.of(entry ? "(root) " + ENTRY : "(root) shared types");
			}
			if (pkg.startsWith(wiring + ".")) {
				String feature = pkg.substring(wiring.length() + 1);
				int dot = feature.indexOf('.');
				return SliceIdentifier.of((dot < 0) ? feature : feature.substring(0, dot));
			}
			return SliceIdentifier.ignore();
		}

		@Override
		public String getDescription() {
			return "wiring packages, with the root's entry auto-configuration apart from its shared types";
		}

	};

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

	// health, metrics and the endpoint show what the client is doing; state is the one
	// package that reads it, so the three cannot disagree about a fact. Health sends its
	// check to Redis through the connection factory, and the endpoint shows the advice.
	@Test
	void readSideReadsTheClientThroughStateOnly() {
		readSide("health", "connection");
		readSide("metrics");
		readSide("endpoint", "advice");
	}

	private static void readSide(String pkg, String... alsoAllowed) {
		String[] allowed = new String[alsoAllowed.length + 2];
		allowed[0] = ROOT + "." + pkg + "..";
		allowed[1] = ROOT + ".state..";
		for (int i = 0; i < alsoAllowed.length; i++) {
			allowed[i + 2] = ROOT + "." + alsoAllowed[i] + "..";
		}
		classes().that()
			.resideInAPackage(ROOT + "." + pkg + "..")
			.should()
			.onlyDependOnClassesThat(resideOutsideOfPackage(ROOT + "..").or(resideInAnyPackage(allowed)))
			.because(pkg + " reads the running client through state's ClientStateReader only, so that the health, "
					+ "the meters and the endpoint tell one story")
			.check(classes);
	}

	// The root wiring package holds two kinds of type. The entry auto-configuration
	// points down into the feature packages (it @Imports their configurations); the
	// rest (properties, ExplicitProperties, CustomizerOrder, ...) is what every feature
	// package shares, and points down into none of them. So the entry is a slice of its
	// own: a feature package that needs the entry back closes a cycle, and so does a
	// shared root type that needs a feature package.
	@Test
	void wiringPackagesAreFreeOfCycles() {
		slices().assignedFrom(WIRING_SLICES).should().beFreeOfCycles().check(classes);
	}

	// ArchUnit reads bytecode, where javac has inlined every compile-time constant: an
	// @Order(LettuceTuningAutoConfiguration.SOME_ORDER) in a feature package leaves no
	// trace of the entry, and the cycle rule above could not see it. An entry without
	// fields has no constant to point back to.
	@Test
	void entryAutoConfigurationHasNothingToPointBackTo() {
		noFields().should()
			.beDeclaredIn(ROOT + ".autoconfigure." + ENTRY)
			.because("a feature package reading a constant of the entry closes a cycle that bytecode "
					+ "does not show; shared constants belong in the root's shared types (CustomizerOrder)")
			.check(classes);
	}

}
