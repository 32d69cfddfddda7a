package io.github.lettucetuning.benchmarks.support;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;

/**
 * What the client JVM used up to one instant: wall clock, process CPU time, the bytes
 * each live thread allocated, the CPU time of Netty's event loops, and the busy CPU time
 * of the whole machine.
 */
public final class ClientSample {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

	// Netty's I/O threads as Lettuce names them: lettuce-nioEventLoop-4-1,
	// lettuce-epollEventLoop-...
	private static final String EVENT_LOOP = "EventLoop";

	private final long nanoTime;

	private final long cpuNanos;

	private final long machineBusyNanos;

	private final Map<Long, Long> allocatedBytes;

	private final Map<Long, Long> eventLoopCpuNanos;

	private final long eventLoopSleeps;

	private ClientSample(long nanoTime, long cpuNanos, long machineBusyNanos, Map<Long, Long> allocatedBytes,
			Map<Long, Long> eventLoopCpuNanos, long eventLoopSleeps) {
		this.nanoTime = nanoTime;
		this.cpuNanos = cpuNanos;
		this.machineBusyNanos = machineBusyNanos;
		this.allocatedBytes = allocatedBytes;
		this.eventLoopCpuNanos = eventLoopCpuNanos;
		this.eventLoopSleeps = eventLoopSleeps;
	}

	/**
	 * Sample the JVM now.
	 * @return the sample
	 */
	public static ClientSample now() {
		long[] ids = THREADS.getAllThreadIds();
		long[] bytes = THREADS.getThreadAllocatedBytes(ids);
		Map<Long, Long> allocated = new HashMap<>(ids.length * 2);
		for (int i = 0; i < ids.length; i++) {
			if (bytes[i] >= 0) {
				allocated.put(ids[i], bytes[i]);
			}
		}
		Map<Long, Long> eventLoops = new HashMap<>();
		ThreadInfo[] infos = THREADS.getThreadInfo(ids);
		for (ThreadInfo info : infos) {
			if (info != null && info.getThreadName().contains(EVENT_LOOP)) {
				long cpu = THREADS.getThreadCpuTime(info.getThreadId());
				if (cpu >= 0) {
					eventLoops.put(info.getThreadId(), cpu);
				}
			}
		}
		long cpu = OS.getProcessCpuTime();
		return new ClientSample(System.nanoTime(), cpu, MachineCpu.busyNanos(), allocated, eventLoops,
				EventLoopSwitches.voluntary());
	}

	/**
	 * Return the wall-clock seconds since an earlier sample.
	 * @param start the earlier sample
	 * @return elapsed seconds
	 */
	public double secondsSince(ClientSample start) {
		return (this.nanoTime - start.nanoTime) / 1e9;
	}

	/**
	 * Return the process CPU time used since an earlier sample.
	 * @param start the earlier sample
	 * @return CPU nanoseconds
	 */
	public long cpuNanosSince(ClientSample start) {
		return this.cpuNanos - start.cpuNanos;
	}

	/**
	 * Return the busy CPU time of the whole machine since an earlier sample.
	 * @param start the earlier sample
	 * @return CPU nanoseconds, negative if unknown
	 */
	public long machineBusyNanosSince(ClientSample start) {
		if (this.machineBusyNanos < 0 || start.machineBusyNanos < 0) {
			return -1;
		}
		return this.machineBusyNanos - start.machineBusyNanos;
	}

	/**
	 * Return the bytes allocated since an earlier sample by the threads alive now. A
	 * thread that ended in between is missed; the benchmark threads, Netty's event loops
	 * and the timers all live through an iteration.
	 * @param start the earlier sample
	 * @return allocated bytes
	 */
	public long allocatedBytesSince(ClientSample start) {
		return sumSince(this.allocatedBytes, start.allocatedBytes);
	}

	/**
	 * Return the CPU time Netty's event-loop threads used since an earlier sample.
	 * @param start the earlier sample
	 * @return CPU nanoseconds, {@code 0} for a client without event loops
	 */
	public long eventLoopCpuNanosSince(ClientSample start) {
		return sumSince(this.eventLoopCpuNanos, start.eventLoopCpuNanos);
	}

	/**
	 * Return how often the event loops went to sleep since an earlier sample.
	 * @param start the earlier sample
	 * @return voluntary context switches of the event-loop threads, negative if unknown
	 */
	public long eventLoopSleepsSince(ClientSample start) {
		if (this.eventLoopSleeps < 0 || start.eventLoopSleeps < 0) {
			return -1;
		}
		return this.eventLoopSleeps - start.eventLoopSleeps;
	}

	private static long sumSince(Map<Long, Long> now, Map<Long, Long> before) {
		long total = 0;
		for (Map.Entry<Long, Long> entry : now.entrySet()) {
			total += entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
		}
		return total;
	}

}
