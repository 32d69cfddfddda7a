package io.github.lettucetuning.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the docs honest: the property reference is current, every property is described,
 * every link between pages resolves, and the map of the code (the README's layout,
 * {@code docs/architecture.md}'s package table) names every package and class there is.
 */
class DocsTests {

	private static final Path DOCS = Path.of("").toAbsolutePath();

	private static final Path CODE = DOCS.resolveSibling("autoconfigure/src/main/java/io/github/lettucetuning");

	@Test
	void propertyReferenceIsCurrent() throws Exception {
		String committed = Files.readString(DOCS.resolve(PropertyReference.PAGE));
		assertThat(committed).as("docs/%s is stale: run 'make docs' and commit it", PropertyReference.PAGE)
			.isEqualTo(PropertyReference.render());
	}

	@Test
	void everyPropertyIsDescribed() throws Exception {
		List<Map<String, Object>> properties = PropertyReference.properties();
		assertThat(properties).isNotEmpty()
			.allSatisfy((property) -> assertThat((String) property.get("description"))
				.as("description of %s", property.get("name"))
				.isNotBlank());
	}

	@Test
	void everyLinkResolves() throws Exception {
		List<Path> pages = new ArrayList<>(DocsSite.pages(DOCS));
		pages.add(DOCS.resolveSibling("README.md"));
		assertThat(pages).hasSizeGreaterThan(3);
		assertThat(LinkChecker.brokenLinks(pages)).isEmpty();
	}

	@Test
	void everyPageIsReachableFromTheIndex() throws Exception {
		String index = Files.readString(DOCS.resolve("index.md"));
		for (Path page : DocsSite.pages(DOCS)) {
			String name = DOCS.relativize(page).toString();
			if (!name.equals("index.md")) {
				assertThat(index).as("index.md links to %s", name).contains("(" + name);
			}
		}
	}

	@Test
	void readmeLayoutAndArchitectureNameEveryPackage() throws Exception {
		String layout = section(Files.readString(DOCS.resolveSibling("README.md")), "## Layout");
		String architecture = section(Files.readString(DOCS.resolve("architecture.md")), "## Which package holds what");
		List<Path> packages = packages();
		assertThat(packages).hasSizeGreaterThan(10);
		for (Path pkg : packages) {
			String name = "`" + pkg.getFileName() + "`";
			assertThat(layout).as("README's layout names the package %s", CODE.relativize(pkg)).contains(name);
			assertThat(architecture).as("architecture.md's package table names the package %s", CODE.relativize(pkg))
				.contains("| " + name + " |");
		}
	}

	@Test
	void architectureNamesEveryClass() throws Exception {
		String architecture = section(Files.readString(DOCS.resolve("architecture.md")), "## Which package holds what");
		try (Stream<Path> files = Files.walk(CODE)) {
			List<String> classes = files.filter((file) -> file.toString().endsWith(".java"))
				.map((file) -> file.getFileName().toString().replace(".java", ""))
				.filter((name) -> !name.equals("package-info"))
				.toList();
			assertThat(classes).hasSizeGreaterThan(50)
				.allSatisfy((name) -> assertThat(architecture)
					.as("architecture.md's package table names the class %s", name)
					.contains("`" + name + "`"));
		}
	}

	@Test
	void upstreamWorkaroundsAndTheirCodeLinkBothWays() throws Exception {
		assertThat(UpstreamLinks.problems(DOCS.resolve("upstream.md"), CODE)).isEmpty();
	}

	// The runtime packages under io.github.lettucetuning and the wiring packages under
	// its
	// autoconfigure package
	private static List<Path> packages() throws IOException {
		List<Path> packages = new ArrayList<>();
		for (Path root : List.of(CODE, CODE.resolve("autoconfigure"))) {
			try (Stream<Path> children = Files.list(root)) {
				children.filter(Files::isDirectory)
					.filter((dir) -> !dir.equals(CODE.resolve("autoconfigure")))
					.forEach(packages::add);
			}
		}
		return packages;
	}

	private static String section(String page, String heading) {
		int start = page.indexOf(heading);
		assertThat(start).as("heading %s", heading).isNotNegative();
		int end = page.indexOf("\n## ", start + heading.length());
		return page.substring(start, (end < 0) ? page.length() : end);
	}

}
