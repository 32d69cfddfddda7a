package io.github.lettucetuning.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.SelectionPolicy;
import io.github.lettucetuning.socket.Transport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata the build generates: every property is described, and every
 * enum value has a hint.
 */
class ConfigurationMetadataTests {

	private final Map<String, Object> metadata = read();

	@Test
	void everyPropertyHasADescription() {
		List<Map<String, Object>> properties = list("properties");
		assertThat(properties).hasSizeGreaterThanOrEqualTo(13)
			.allSatisfy((property) -> assertThat((String) property.get("description"))
				.as("description of %s", property.get("name"))
				.isNotBlank());
	}

	@Test
	void everyEnumValueHasAHint() {
		assertThat(hintValues("lettuce.tuning.connection.mode"))
			.containsExactlyInAnyOrderElementsOf(names(ConnectionMode.values()));
		assertThat(hintValues("lettuce.tuning.connection.multi.selection"))
			.containsExactlyInAnyOrderElementsOf(names(SelectionPolicy.values()));
		assertThat(hintValues("lettuce.tuning.credentials.provider")).containsExactly("auto", "none");
		assertThat(hintValues("lettuce.tuning.timer.type"))
			.containsExactlyInAnyOrderElementsOf(names(LettuceTuningProperties.TimerType.values()));
		assertThat(hintValues("lettuce.tuning.socket.transport"))
			.containsExactlyInAnyOrderElementsOf(names(Transport.values()));
		assertThat(hintValues("lettuce.tuning.resilience.reconnect.jitter"))
			.containsExactlyInAnyOrderElementsOf(names(LettuceTuningProperties.ReconnectJitter.values()));
	}

	@Test
	void defaultsAreDocumented() {
		assertThat(property("lettuce.tuning.connection.mode")).containsEntry("defaultValue", "shared");
		assertThat(property("lettuce.tuning.credentials.provider")).containsEntry("defaultValue", "auto");
		assertThat(property("lettuce.tuning.sentinel.follow-switch-master")).containsEntry("defaultValue", true);
		assertThat(property("lettuce.tuning.resilience.reconnect.max-delay")).containsEntry("defaultValue", "1s");
		assertThat(property("lettuce.tuning.timer.tick")).containsEntry("defaultValue", "10ms");
		assertThat(property("lettuce.tuning.resilience.fail-fast.grace")).containsEntry("defaultValue", "1s");
		assertThat(property("lettuce.tuning.resilience.stall-detection.timeout")).containsEntry("defaultValue", "2s");
		assertThat(property("lettuce.tuning.resilience.request-queue-size")).containsEntry("defaultValue", 100000);
	}

	private Map<String, Object> property(String name) {
		return list("properties").stream()
			.filter((property) -> name.equals(property.get("name")))
			.findFirst()
			.orElseThrow();
	}

	@SuppressWarnings("unchecked")
	private List<String> hintValues(String name) {
		Map<String, Object> hint = list("hints").stream()
			.filter((candidate) -> name.equals(candidate.get("name")))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no hint for " + name));
		List<String> values = new ArrayList<>();
		for (Map<String, Object> value : (List<Map<String, Object>>) hint.get("values")) {
			assertThat((String) value.get("description")).isNotBlank();
			values.add((String) value.get("value"));
		}
		return values;
	}

	private static List<String> names(Enum<?>[] values) {
		return Arrays.stream(values).map((value) -> value.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList();
	}

	@SuppressWarnings("unchecked")
	private List<Map<String, Object>> list(String key) {
		return (List<Map<String, Object>>) this.metadata.get(key);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> read() {
		try (InputStream in = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			return JsonPath.parse(in).read("$", Map.class);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
