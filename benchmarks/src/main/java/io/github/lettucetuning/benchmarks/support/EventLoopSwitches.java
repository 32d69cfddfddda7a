package io.github.lettucetuning.benchmarks.support;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Counts how often Lettuce's Netty event-loop threads went to sleep: the voluntary
 * context switches of the JVM's tasks whose name (as {@code /proc} truncates it to 15
 * characters, e.g. {@code lettuce-nioEven}) marks them as event loops. Each sleep costs
 * the next writer a wake-up. Returns {@code -1} where {@code /proc} cannot be read.
 */
final class EventLoopSwitches {

	private static final Path TASKS = Path.of("/proc/self/task");

	private static final String VOLUNTARY = "voluntary_ctxt_switches:";

	private EventLoopSwitches() {
	}

	/**
	 * Return the voluntary context switches of the event loops so far.
	 * @return the count, or {@code -1} if unknown
	 */
	static long voluntary() {
		long total = 0;
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
			for (Path task : tasks) {
				String name = read(task.resolve("comm")).trim();
				if (name.startsWith("lettuce-") && name.contains("Ev")) {
					total += switches(read(task.resolve("status")));
				}
			}
			return total;
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	private static long switches(String status) {
		for (String line : status.split("\n")) {
			if (line.startsWith(VOLUNTARY)) {
				return Long.parseLong(line.substring(VOLUNTARY.length()).trim());
			}
		}
		return 0;
	}

	// A task may end between listing and reading: count it as nothing.
	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			return "";
		}
	}

}
