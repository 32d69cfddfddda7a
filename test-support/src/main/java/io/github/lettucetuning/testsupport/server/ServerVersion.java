package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What a server executable says it is, from {@code --version}:
 * {@code Redis server v=7.0.15 sha=...} or {@code Valkey server v=8.0.1 sha=...}. Tests
 * compare what a client reports with this, which comes from the executable rather than
 * from the server's replies.
 *
 * @param name the server's name in lower case ({@code redis}, {@code valkey})
 * @param version its version ({@code 7.0.15}, {@code 8.0.1})
 */
public record ServerVersion(String name, String version) {

	private static final Pattern LINE = Pattern.compile("^(\\S+) server v=(\\S+)");

	private static final long TIMEOUT_SECONDS = 10;

	private static final Map<Path, ServerVersion> known = new ConcurrentHashMap<>();

	/**
	 * Return the kind of server, if it is one the tests know.
	 * @return the kind, or {@code null}
	 */
	public @Nullable ServerKind kind() {
		return ServerKind.ofTitle(this.name);
	}

	/**
	 * Run {@code <executable> --version} (once per executable) and read its answer.
	 * @param executable the server executable
	 * @return the name and version
	 * @throws RedisServerException if it does not answer in time or says something else
	 */
	public static ServerVersion of(Path executable) {
		return known.computeIfAbsent(executable.toAbsolutePath().normalize(), ServerVersion::run);
	}

	private static ServerVersion run(Path executable) {
		try {
			Process process = new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
			if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new RedisServerException(
						"'" + executable + " --version' did not finish within " + TIMEOUT_SECONDS + "s");
			}
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			return parse(output, executable);
		}
		catch (IOException ex) {
			throw new RedisServerException("Could not run '" + executable + " --version': " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisServerException("Interrupted while running '" + executable + " --version'", ex);
		}
	}

	static ServerVersion parse(String output, Path executable) {
		Matcher matcher = LINE.matcher(output.strip());
		if (!matcher.find()) {
			throw new RedisServerException("'" + executable + " --version' printed '" + output.strip()
					+ "', not '<Name> server v=<version> ...'");
		}
		return new ServerVersion(matcher.group(1).toLowerCase(Locale.ROOT), matcher.group(2));
	}

}
