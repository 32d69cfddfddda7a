package io.github.lettucetuning.testsupport.fault;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Runs short system commands (firewall tools) with a bound and captures their output.
 */
final class CommandRunner {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	/**
	 * Firewall tools live in sbin directories that are often missing from a user's PATH.
	 */
	private static final List<String> EXTRA_DIRECTORIES = List.of("/usr/sbin", "/sbin", "/usr/local/sbin");

	private CommandRunner() {
	}

	static Optional<Path> find(String name) {
		List<String> directories = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			directories.addAll(List.of(path.split(java.io.File.pathSeparator)));
		}
		directories.addAll(EXTRA_DIRECTORIES);
		return directories.stream()
			.filter((directory) -> !directory.isBlank())
			.map((directory) -> Path.of(directory, name))
			.filter((candidate) -> Files.isRegularFile(candidate) && Files.isExecutable(candidate))
			.findFirst();
	}

	static Result run(List<String> command, @Nullable String input) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			try (OutputStream stdin = process.getOutputStream()) {
				if (input != null) {
					stdin.write(input.getBytes(StandardCharsets.UTF_8));
				}
			}
			if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				return new Result(-1, "timed out after " + TIMEOUT.toSeconds() + " s");
			}
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			return new Result(process.exitValue(), output);
		}
		catch (IOException ex) {
			return new Result(-1, ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Result(-1, "interrupted");
		}
	}

	/**
	 * Exit code and combined output of a command.
	 *
	 * @param exitCode the exit code, -1 if it could not run
	 * @param output stdout and stderr
	 */
	record Result(int exitCode, String output) {

		boolean succeeded() {
			return this.exitCode == 0;
		}

	}

}
