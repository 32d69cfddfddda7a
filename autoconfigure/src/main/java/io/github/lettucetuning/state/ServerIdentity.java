package io.github.lettucetuning.state;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Which server answers, and its own version: Redis, Valkey, or another server that speaks
 * the protocol.
 * <p>
 * {@code redis_version} alone misleads: Valkey reports a frozen {@code 7.2.4} there, for
 * clients that gate features on it, and gives its name in {@code server_name} and its own
 * version in {@code valkey_version}; Redis has neither field. {@code INFO server} is the
 * better source: with {@code extended-redis-compatibility yes} Valkey answers
 * {@code HELLO} as {@code redis 7.2.4} but still names itself in {@code INFO}.
 *
 * @param name the server's name in lower case: {@code redis}, {@code valkey}, or what the
 * server calls itself
 * @param version the server's own version, or {@value #UNKNOWN} if it gave none
 * @param mode {@code standalone}, {@code sentinel} or {@code cluster}, or {@code null} if
 * the server did not say
 * @param role {@code primary} or {@code replica} as {@code INFO replication} last said,
 * or {@code null} if it was not read
 * @since 0.1.0
 */
public record ServerIdentity(String name, String version, @Nullable String mode, @Nullable String role) {

	/**
	 * Create an identity whose role was not read.
	 * @param name the server's name
	 * @param version the server's own version
	 * @param mode the server's mode, or {@code null}
	 */
	public ServerIdentity(String name, String version, @Nullable String mode) {
		this(name, version, mode, null);
	}

	/**
	 * Return this identity with the server's role.
	 * @param role {@code primary} or {@code replica}, or {@code null}
	 * @return the identity
	 */
	public ServerIdentity withRole(@Nullable String role) {
		return new ServerIdentity(this.name, this.version, this.mode, role);
	}

	/**
	 * The version of a server that did not report one.
	 */
	public static final String UNKNOWN = "unknown";

	private static final String REDIS = "redis";

	/**
	 * Read the identity from the text of an {@code INFO server} (or {@code INFO}) reply.
	 * @param info the reply text
	 * @return the identity
	 */
	public static ServerIdentity fromInfo(String info) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
			}
		}
		return fromInfo(fields);
	}

	/**
	 * Read the identity from the fields of an {@code INFO server} reply: the name from
	 * {@code server_name} ({@code redis} when absent, as Redis sends none), the version
	 * from {@code <name>_version} before {@code redis_version}, the mode from
	 * {@code server_mode} before {@code redis_mode}.
	 * @param fields the fields by name
	 * @return the identity
	 */
	public static ServerIdentity fromInfo(Map<String, String> fields) {
		String name = name(fields.get("server_name"));
		String version = firstPresent(fields.get(name + "_version"), fields.get("redis_version"));
		String mode = firstPresent(fields.get("server_mode"), fields.get("redis_mode"));
		return new ServerIdentity(name, (version != null) ? version : UNKNOWN, mode);
	}

	/**
	 * Read the identity from the map a {@code HELLO} reply carries ({@code server},
	 * {@code version}, {@code mode}). Less reliable than {@code INFO}: a Valkey with
	 * {@code extended-redis-compatibility} says it is Redis {@code 7.2.4} here.
	 * @param reply the reply's entries by key
	 * @return the identity
	 */
	public static ServerIdentity fromHello(Map<String, ?> reply) {
		String name = name(text(reply.get("server")));
		String version = text(reply.get("version"));
		return new ServerIdentity(name, (version != null) ? version : UNKNOWN, text(reply.get("mode")));
	}

	private static String name(@Nullable String name) {
		return (name != null && !name.isBlank()) ? name.trim().toLowerCase(Locale.ROOT) : REDIS;
	}

	private static @Nullable String text(@Nullable Object value) {
		return (value != null) ? firstPresent(value.toString(), null) : null;
	}

	private static @Nullable String firstPresent(@Nullable String first, @Nullable String second) {
		if (first != null && !first.isBlank()) {
			return first.trim();
		}
		return (second != null && !second.isBlank()) ? second.trim() : null;
	}

}
