package io.github.lettucetuning.testsupport.server;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses the text of an {@code INFO} (or {@code CLUSTER INFO}) reply into a map.
 */
public final class RedisInfo {

	private RedisInfo() {
	}

	/**
	 * Parse {@code key:value} lines, ignoring section headers and blank lines.
	 * @param info the reply text
	 * @return an ordered, unmodifiable map of the fields
	 */
	public static Map<String, String> parse(String info) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (!line.isBlank() && !line.startsWith("#") && colon > 0) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return Collections.unmodifiableMap(fields);
	}

}
