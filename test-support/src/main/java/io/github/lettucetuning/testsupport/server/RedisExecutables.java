package io.github.lettucetuning.testsupport.server;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Locates the {@code redis-server} and {@code redis-cli} executables: a system property
 * wins, otherwise the {@code PATH} is searched. A missing executable is an error with an
 * install hint, never a silent skip.
 */
public final class RedisExecutables {

	/**
	 * System property holding the path of the {@code redis-server} executable.
	 */
	public static final String REDIS_SERVER_PROPERTY = "lettuce.tuning.redis-server";

	/**
	 * System property holding the path of the {@code redis-cli} executable.
	 */
	public static final String REDIS_CLI_PROPERTY = "lettuce.tuning.redis-cli";

	private RedisExecutables() {
	}

	/**
	 * Locate {@code redis-server}.
	 * @return the executable
	 * @throws RedisServerNotFoundException if it cannot be found
	 */
	public static Path redisServer() {
		return locate("redis-server", REDIS_SERVER_PROPERTY, System.getenv("PATH"));
	}

	/**
	 * Locate {@code redis-cli}, preferring the one next to the given
	 * {@code redis-server}.
	 * @param redisServer the {@code redis-server} in use
	 * @return the executable
	 * @throws RedisServerNotFoundException if it cannot be found
	 */
	public static Path redisCli(Path redisServer) {
		Path sibling = redisServer.resolveSibling("redis-cli");
		if (System.getProperty(REDIS_CLI_PROPERTY) == null && isExecutable(sibling)) {
			return sibling;
		}
		return locate("redis-cli", REDIS_CLI_PROPERTY, System.getenv("PATH"));
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
		if (!isExecutable(executable)) {
			throw new RedisServerNotFoundException(executable.getFileName() + " was not found at '" + executable
					+ "' (configured by " + source + "). " + RedisServerNotFoundException.INSTALL_HINT);
		}
		return executable;
	}

	static Optional<Path> findOnPath(String name, @Nullable String pathVariable) {
		if (pathVariable == null) {
			return Optional.empty();
		}
		for (String directory : pathVariable.split(File.pathSeparator)) {
			if (!directory.isBlank()) {
				Path candidate = Path.of(directory, name);
				if (isExecutable(candidate)) {
					return Optional.of(candidate);
				}
			}
		}
		return Optional.empty();
	}

	private static boolean isExecutable(Path candidate) {
		return Files.isRegularFile(candidate) && Files.isExecutable(candidate);
	}

}
