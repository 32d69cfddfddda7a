package io.github.lettucetuning.testsupport.server;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Locates the server and command-line client executables of the {@link ServerKind} chosen
 * for the suite: a system property wins, otherwise the {@code PATH} is searched. A
 * missing executable is an error with an install hint, never a silent skip.
 * <p>
 * Redis (the default) is {@code redis-server} and {@code redis-cli}. Valkey is
 * {@code valkey-server}, or a {@code redis-server} whose {@code --version} says Valkey (a
 * package's compatibility link), and {@code valkey-cli} (or {@code redis-cli}); with
 * Valkey chosen, an executable that is not Valkey is an error too, so a run never passes
 * against the wrong server.
 */
public final class RedisExecutables {

	/**
	 * System property holding the path of the server executable ({@code redis-server}, or
	 * {@code valkey-server} when Valkey is chosen).
	 */
	public static final String REDIS_SERVER_PROPERTY = "lettuce.tuning.redis-server";

	/**
	 * System property holding the path of the command-line client executable.
	 */
	public static final String REDIS_CLI_PROPERTY = "lettuce.tuning.redis-cli";

	private RedisExecutables() {
	}

	/**
	 * Locate the server executable of the {@link ServerKind#selected() chosen} kind.
	 * @return the executable
	 * @throws RedisServerNotFoundException if it cannot be found
	 */
	public static Path redisServer() {
		return redisServer(ServerKind.selected(), System.getenv("PATH"));
	}

	static Path redisServer(ServerKind kind, @Nullable String pathVariable) {
		if (kind == ServerKind.REDIS) {
			return locate("redis-server", REDIS_SERVER_PROPERTY, pathVariable);
		}
		String configured = System.getProperty(REDIS_SERVER_PROPERTY);
		if (configured != null && !configured.isBlank()) {
			return requireKind(kind,
					requireExecutable(Path.of(configured), "system property '" + REDIS_SERVER_PROPERTY + "'", kind),
					"system property '" + REDIS_SERVER_PROPERTY + "'");
		}
		List<String> rejected = new ArrayList<>();
		// Every match on the PATH, not just the first: Redis's redis-server may come
		// before the one a Valkey package links to valkey-server.
		for (String name : List.of(kind.serverExecutable(), "redis-server")) {
			for (Path candidate : allOnPath(name, pathVariable)) {
				ServerVersion version = ServerVersion.of(candidate);
				if (version.kind() == kind) {
					return candidate;
				}
				rejected.add(candidate + " is " + version.name() + " " + version.version());
			}
		}
		throw new RedisServerNotFoundException(kind.serverExecutable() + " was not found on the PATH, and "
				+ ServerKind.PROPERTY + "/" + ServerKind.ENVIRONMENT_VARIABLE + " asks for " + kind.id()
				+ (rejected.isEmpty() ? "" : " (" + String.join("; ", rejected) + ")") + ". " + kind.installHint());
	}

	/**
	 * Locate {@code redis-cli} (or {@code valkey-cli}), preferring the one next to the
	 * given server.
	 * @param redisServer the server executable in use
	 * @return the executable
	 * @throws RedisServerNotFoundException if it cannot be found
	 */
	public static Path redisCli(Path redisServer) {
		ServerKind kind = ServerKind.selected();
		if (System.getProperty(REDIS_CLI_PROPERTY) == null) {
			for (String name : cliNames(kind)) {
				Path sibling = redisServer.resolveSibling(name);
				if (isExecutable(sibling)) {
					return sibling;
				}
			}
			if (kind != ServerKind.REDIS) {
				Optional<Path> onPath = findOnPath(kind.cliExecutable(), System.getenv("PATH"));
				if (onPath.isPresent()) {
					return onPath.get();
				}
			}
		}
		return locate("redis-cli", REDIS_CLI_PROPERTY, System.getenv("PATH"));
	}

	private static List<String> cliNames(ServerKind kind) {
		return (kind != ServerKind.REDIS) ? List.of(kind.cliExecutable(), "redis-cli") : List.of("redis-cli");
	}

	static Path locate(String name, String property, @Nullable String pathVariable) {
		String configured = System.getProperty(property);
		if (configured != null && !configured.isBlank()) {
			return requireExecutable(Path.of(configured), "system property '" + property + "'");
		}
		return findOnPath(name, pathVariable).orElseThrow(() -> new RedisServerNotFoundException(
				name + " was not found on the PATH. " + RedisServerNotFoundException.INSTALL_HINT));
	}

	/**
	 * Check that an explicitly configured executable exists.
	 * @param executable the executable
	 * @param source where the location came from, for the error message
	 * @return the executable
	 * @throws RedisServerNotFoundException if it is missing or not executable
	 */
	static Path requireExecutable(Path executable, String source) {
		return requireExecutable(executable, source, ServerKind.REDIS);
	}

	private static Path requireExecutable(Path executable, String source, ServerKind kind) {
		if (!isExecutable(executable)) {
			throw new RedisServerNotFoundException(executable.getFileName() + " was not found at '" + executable
					+ "' (configured by " + source + "). " + kind.installHint());
		}
		return executable;
	}

	/**
	 * Check that a server executable is of the kind the suite runs against.
	 * @param kind the kind chosen
	 * @param executable the executable
	 * @param source where the location came from, for the error message
	 * @return the executable
	 * @throws RedisServerNotFoundException if it is another server
	 */
	static Path requireKind(ServerKind kind, Path executable, String source) {
		ServerVersion version = ServerVersion.of(executable);
		if (version.kind() != kind) {
			throw new RedisServerNotFoundException("'" + executable + "' (configured by " + source + ") is "
					+ version.name() + " " + version.version() + ", but " + ServerKind.PROPERTY + "/"
					+ ServerKind.ENVIRONMENT_VARIABLE + " asks for " + kind.id() + ". " + kind.installHint());
		}
		return executable;
	}

	static Optional<Path> findOnPath(String name, @Nullable String pathVariable) {
		return allOnPath(name, pathVariable).stream().findFirst();
	}

	// Each file once: with a merged /usr, /bin and /usr/bin hold the same executables.
	private static List<Path> allOnPath(String name, @Nullable String pathVariable) {
		Map<Path, Path> found = new LinkedHashMap<>();
		if (pathVariable == null) {
			return List.of();
		}
		for (String directory : pathVariable.split(File.pathSeparator)) {
			if (!directory.isBlank()) {
				Path candidate = Path.of(directory, name);
				if (isExecutable(candidate)) {
					found.putIfAbsent(realPath(candidate), candidate);
				}
			}
		}
		return List.copyOf(found.values());
	}

	private static Path realPath(Path path) {
		try {
			return path.toRealPath();
		}
		catch (IOException ex) {
			return path.toAbsolutePath().normalize();
		}
	}

	private static boolean isExecutable(Path candidate) {
		return Files.isRegularFile(candidate) && Files.isExecutable(candidate);
	}

}
