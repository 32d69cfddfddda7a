package io.github.lettucetuning.benchmarks.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads the CPU time the whole machine spent busy from {@code /proc/stat}, so that load
 * from other processes during an iteration shows up in its record. Returns {@code -1}
 * where {@code /proc/stat} cannot be read.
 */
final class MachineCpu {

	private static final Path PROC_STAT = Path.of("/proc/stat");

	// USER_HZ is 100 on every Linux architecture the JDK runs on.
	private static final long NANOS_PER_TICK = 10_000_000L;

	private MachineCpu() {
	}

	/**
	 * Return the busy CPU time of all cores since boot: user, nice, system, irq, softirq
	 * and steal.
	 * @return nanoseconds, or {@code -1} if unknown
	 */
	static long busyNanos() {
		try {
			List<String> lines = Files.readAllLines(PROC_STAT);
			String[] fields = lines.get(0).trim().split("\\s+");
			long busy = 0;
			int[] busyFields = { 1, 2, 3, 6, 7, 8 };
			for (int field : busyFields) {
				busy += Long.parseLong(fields[field]);
			}
			return busy * NANOS_PER_TICK;
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

}
