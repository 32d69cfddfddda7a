package io.github.lettucetuning.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the docs honest: the property reference is current, every property is described,
 * and every link between pages resolves.
 */
class DocsTests {

	private static final Path DOCS = Path.of("").toAbsolutePath();

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

}
