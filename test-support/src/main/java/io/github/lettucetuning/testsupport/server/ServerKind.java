package io.github.lettucetuning.testsupport.server;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Which server the tests run against: Redis (the default) or Valkey. One switch chooses
 * it for the whole suite, the system property {@value #PROPERTY} or, without it, the
 * environment variable {@value #ENVIRONMENT_VARIABLE} ({@code redis} or {@code valkey}).
 */
public enum ServerKind {

	/**
	 * Redis: {@code redis-server} and {@code redis-cli}.
	 */
	REDIS("redis", "Redis", "redis-server", "redis-cli",
			"Install it: 'apt-get install -y redis-server' (Debian/Ubuntu) or 'brew install redis' (macOS)."),

	/**
	 * Valkey: {@code valkey-server} and {@code valkey-cli}, or a {@code redis-server}
	 * that is Valkey.
	 */
	VALKEY("valkey", "Valkey", "valkey-server", "valkey-cli",
			"Install it ('apt-get install -y valkey-server' on Debian 13 or Ubuntu 24.04 and later, "
					+ "'brew install valkey' on macOS) or build it from source and put its 'src' directory on the PATH.");

	/**
	 * System property choosing the server; wins over the environment variable.
	 */
	public static final String PROPERTY = "lettuce.tuning.server";

	/**
	 * Environment variable choosing the server when the system property is not set.
	 */
	public static final String ENVIRONMENT_VARIABLE = "LETTUCE_TUNING_SERVER";

	private final String id;

	private final String title;

	private final String serverExecutable;

	private final String cliExecutable;

	private final String installHint;

	ServerKind(String id, String title, String serverExecutable, String cliExecutable, String installHint) {
		this.id = id;
		this.title = title;
		this.serverExecutable = serverExecutable;
		this.cliExecutable = cliExecutable;
		this.installHint = installHint;
	}

	/**
	 * Return the server chosen by {@value #PROPERTY} or {@value #ENVIRONMENT_VARIABLE}.
	 * @return the server, {@link #REDIS} when neither is set
	 * @throws IllegalArgumentException if the value names no server
	 */
	public static ServerKind selected() {
		String property = System.getProperty(PROPERTY);
		if (property != null && !property.isBlank()) {
			return of(property, "system property '" + PROPERTY + "'");
		}
		String variable = System.getenv(ENVIRONMENT_VARIABLE);
		if (variable != null && !variable.isBlank()) {
			return of(variable, "environment variable '" + ENVIRONMENT_VARIABLE + "'");
		}
		return REDIS;
	}

	static ServerKind of(String value, String source) {
		String id = value.trim().toLowerCase(Locale.ROOT);
		return Arrays.stream(values())
			.filter((kind) -> kind.id.equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Unknown server '" + value + "' in " + source
					+ "; use one of " + Arrays.stream(values()).map((kind) -> kind.id).collect(Collectors.joining(", "))
					+ ", or leave it unset for redis."));
	}

	/**
	 * Return the server's name as its {@code INFO} and {@code --version} give it.
	 * @return {@code redis} or {@code valkey}
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Return the word {@code --version} starts with.
	 * @return {@code Redis} or {@code Valkey}
	 */
	public String title() {
		return this.title;
	}

	/**
	 * Return the file name of the server executable.
	 * @return {@code redis-server} or {@code valkey-server}
	 */
	public String serverExecutable() {
		return this.serverExecutable;
	}

	/**
	 * Return the file name of the command-line client.
	 * @return {@code redis-cli} or {@code valkey-cli}
	 */
	public String cliExecutable() {
		return this.cliExecutable;
	}

	/**
	 * Return how to install the server.
	 * @return the hint
	 */
	public String installHint() {
		return this.installHint;
	}

	/**
	 * Return the kind a {@code --version} line names.
	 * @param title the first word of the line ({@code Redis}, {@code Valkey})
	 * @return the kind, or {@code null} if the word names none
	 */
	static @Nullable ServerKind ofTitle(String title) {
		return Arrays.stream(values()).filter((kind) -> kind.title.equalsIgnoreCase(title)).findFirst().orElse(null);
	}

}
