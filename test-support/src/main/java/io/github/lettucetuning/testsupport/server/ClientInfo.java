package io.github.lettucetuning.testsupport.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One connection as reported by {@code CLIENT LIST}.
 *
 * @param id the client id
 * @param addr the remote address ({@code ip:port})
 * @param name the client name, empty when none was set
 * @param cmd the last command the client ran
 * @param fields every field of the line, for the ones without an accessor
 */
public record ClientInfo(long id, String addr, String name, String cmd, Map<String, String> fields) {

	/**
	 * Parse the full reply of {@code CLIENT LIST}.
	 * @param clientList the reply text
	 * @return one entry per line
	 */
	public static List<ClientInfo> parseList(String clientList) {
		List<ClientInfo> clients = new ArrayList<>();
		for (String line : clientList.split("\r?\n")) {
			if (!line.isBlank()) {
				clients.add(parse(line));
			}
		}
		return clients;
	}

	/**
	 * Parse one line of {@code CLIENT LIST}.
	 * @param line the line
	 * @return the parsed entry
	 */
	public static ClientInfo parse(String line) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String field : line.trim().split(" ")) {
			int equals = field.indexOf('=');
			if (equals > 0) {
				fields.put(field.substring(0, equals), field.substring(equals + 1));
			}
		}
		return new ClientInfo(Long.parseLong(fields.getOrDefault("id", "-1")), fields.getOrDefault("addr", ""),
				fields.getOrDefault("name", ""), fields.getOrDefault("cmd", ""), Collections.unmodifiableMap(fields));
	}

}
