package io.github.lettucetuning.docs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;

/**
 * Generates the property reference page from the configuration metadata that the build
 * writes for the auto-configuration module, so that the page cannot drift from the code.
 * Run {@code make docs} to regenerate it.
 */
public final class PropertyReference {

	static final String METADATA = "/META-INF/spring-configuration-metadata.json";

	static final String PAGE = "configuration-properties.md";

	// Hand-written: why defaults differ from Boot's and Lettuce's, and where removed keys
	// went.
	static final String TUNED_DEFAULTS = "tuned-defaults.md";

	private PropertyReference() {
	}

	public static void main(String[] args) throws IOException {
		Path docs = Path.of(args.length > 0 ? args[0] : "docs");
		Files.writeString(docs.resolve(PAGE), render(), StandardCharsets.UTF_8);
	}

	/**
	 * Render the page from the metadata on the classpath.
	 * @return the Markdown page
	 */
	public static String render() throws IOException {
		StringBuilder page = new StringBuilder();
		page.append("# Configuration properties\n\n")
			.append("Generated from the configuration metadata by `make docs`; the build fails when this page is stale.\n")
			.append("Every `spring.data.redis.*` property of Spring Boot keeps its meaning as well.\n\n")
			.append("| Property | Default | Description |\n")
			.append("|---|---|---|\n");
		for (Map<String, Object> property : properties()) {
			page.append("| `")
				.append(property.get("name"))
				.append("` | ")
				.append(defaultValue(property))
				.append(" | ")
				.append(escape(String.valueOf(property.get("description"))))
				.append(" |\n");
		}
		return page.append(tunedDefaults()).toString();
	}

	private static String tunedDefaults() throws IOException {
		try (InputStream in = PropertyReference.class.getResourceAsStream(TUNED_DEFAULTS)) {
			if (in == null) {
				throw new IllegalStateException(TUNED_DEFAULTS + " is not on the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	/**
	 * Return the properties of the metadata, sorted by name.
	 * @return the properties
	 */
	@SuppressWarnings("unchecked")
	public static List<Map<String, Object>> properties() throws IOException {
		try (InputStream in = PropertyReference.class.getResourceAsStream(METADATA)) {
			if (in == null) {
				throw new IllegalStateException(METADATA + " is not on the classpath: build the autoconfigure module");
			}
			List<Map<String, Object>> properties = new ArrayList<>(JsonPath.parse(in).read("$.properties", List.class));
			properties.sort(Comparator.comparing((property) -> (String) property.get("name")));
			return properties;
		}
	}

	private static String defaultValue(Map<String, Object> property) {
		Object value = property.get("defaultValue");
		return (value != null) ? "`" + value + "`" : "";
	}

	private static String escape(String text) {
		return text.replace("|", "\\|").replace("\n", " ");
	}

}
