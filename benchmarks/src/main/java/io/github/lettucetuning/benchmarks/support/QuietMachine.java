package io.github.lettucetuning.benchmarks.support;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.sun.management.OperatingSystemMXBean;

/**
 * Waits, before an iteration, until other processes leave the machine alone: on a shared
 * 2-core machine a build running next to the benchmark skews it by tens of percent. The
 * load of others is the machine's busy CPU time minus that of this JVM and of the
 * benchmark's redis-server processes (one, or every node of a cluster). The wait is
 * capped; how long it took is recorded.
 * <p>
 * System properties: {@value #MAX_WAIT_PROPERTY} (seconds, default 10, 0 switches the
 * wait off) and {@value #THRESHOLD_PROPERTY} (cores, default 0.2).
 */
final class QuietMachine {

	static final String MAX_WAIT_PROPERTY = "lettuce.bench.quiet.max-wait";

	static final String THRESHOLD_PROPERTY = "lettuce.bench.quiet.threshold";

	private static final Duration FIRST_WINDOW = Duration.ofMillis(200);

	private static final Duration WINDOW = Duration.ofMillis(500);

	// USER_HZ is 100 on every Linux architecture the JDK runs on.
	private static final long NANOS_PER_TICK = 10_000_000L;

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private final List<Long> serverPids;

	private final Duration maxWait;

	private final double threshold;

	QuietMachine(List<Long> serverPids) {
		this.serverPids = List.copyOf(serverPids);
		this.maxWait = Duration.ofSeconds(Long.getLong(MAX_WAIT_PROPERTY, 10));
		this.threshold = Double.parseDouble(System.getProperty(THRESHOLD_PROPERTY, "0.2"));
	}

	/**
	 * Wait until the load of other processes falls below the threshold, or the maximum
	 * wait passed.
	 * @return the seconds waited
	 */
	double await() {
		long start = System.nanoTime();
		long deadline = start + this.maxWait.toNanos();
		boolean announced = false;
		Duration window = FIRST_WINDOW;
		while (System.nanoTime() < deadline) {
			double others = othersCores(window);
			window = WINDOW;
			if (others < 0 || others < this.threshold) {
				break;
			}
			if (!announced) {
				System.err.printf("[quiet-machine] other processes use %.2f cores; waiting up to %ds%n", others,
						this.maxWait.toSeconds());
				announced = true;
			}
		}
		return (System.nanoTime() - start) / 1e9;
	}

	private double othersCores(Duration window) {
		long machineStart = MachineCpu.busyNanos();
		long ownStart = OS.getProcessCpuTime();
		long serverStart = serversCpuNanos();
		long wallStart = System.nanoTime();
		try {
			Thread.sleep(window.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
		long machine = MachineCpu.busyNanos() - machineStart;
		long own = OS.getProcessCpuTime() - ownStart;
		long server = serversCpuNanos() - serverStart;
		if (machineStart < 0 || serverStart < 0) {
			return -1;
		}
		return (machine - own - server) / (double) (System.nanoTime() - wallStart);
	}

	private long serversCpuNanos() {
		long total = 0;
		for (long pid : this.serverPids) {
			long nanos = processCpuNanos(pid);
			if (nanos < 0) {
				return -1;
			}
			total += nanos;
		}
		return total;
	}

	private static long processCpuNanos(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

}
