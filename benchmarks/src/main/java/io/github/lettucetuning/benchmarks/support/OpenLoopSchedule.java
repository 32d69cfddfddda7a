package io.github.lettucetuning.benchmarks.support;

import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * One JMH thread's share of an open-loop schedule: a fixed total rate of operations
 * (system property {@value #RATE_PROPERTY}, default {@value #DEFAULT_RATE} per second)
 * split evenly over the benchmark's threads. Operation k of a thread is due at the
 * thread's start plus k intervals, whether or not earlier replies have arrived, and its
 * latency counts from then (see {@link OperationLatencies#recordFromIntended(long)}):
 * when a reply comes late, the operations that fell due while the caller waited carry
 * that wait, as they would for the requests queueing in front of a real service. That is
 * the correction for coordinated omission, which a closed loop cannot apply.
 * <p>
 * The schedule starts afresh with each iteration, at the thread's first operation, so lag
 * built up in warm-up or while the harness waited for a quiet machine does not carry into
 * measurement.
 */
@State(Scope.Thread)
public class OpenLoopSchedule {

	/**
	 * System property with the total rate, operations per second over all threads.
	 */
	public static final String RATE_PROPERTY = "lettuce.bench.open-loop.rate";

	/**
	 * Total rate without the property: about a quarter of what every setup sustains
	 * closed-loop at 16 threads on 2 cores, so that the cell compares latencies, not
	 * throughput; at 20,000/s each command costs enough more CPU without batching (about
	 * 70 µs of client CPU) that every setup fell behind its schedule.
	 */
	public static final int DEFAULT_RATE = 10_000;

	private long intervalNanos;

	private long phaseNanos;

	private boolean started;

	private long nextDue;

	/**
	 * Take this thread's share of the rate and restart the schedule at the next
	 * operation.
	 * @param thread the JMH parameters of this thread
	 */
	@Setup(Level.Iteration)
	public void restart(ThreadParams thread) {
		int threads = thread.getThreadCount();
		this.intervalNanos = Math.max(1, Math.round(threads * 1e9 / rate()));
		// Threads out of phase by an even share of the interval issue together at an
		// even pace, not in bursts of one operation per thread
		this.phaseNanos = this.intervalNanos * thread.getThreadIndex() / threads;
		this.started = false;
	}

	private static int rate() {
		int rate = Integer.getInteger(RATE_PROPERTY, DEFAULT_RATE);
		if (rate <= 0) {
			throw new IllegalArgumentException(RATE_PROPERTY + " must be positive, not " + rate);
		}
		return rate;
	}

	/**
	 * Wait until the next operation is due, unless it is overdue, and note in the
	 * latencies how late it is issued.
	 * @param latencies where the lag goes
	 * @return {@link System#nanoTime()} when the operation was due
	 */
	public long awaitNext(OperationLatencies latencies) {
		long now = System.nanoTime();
		if (!this.started) {
			this.started = true;
			this.nextDue = now + this.phaseNanos;
		}
		long due = this.nextDue;
		this.nextDue += this.intervalNanos;
		while (now < due) {
			LockSupport.parkNanos(due - now);
			now = System.nanoTime();
		}
		latencies.recordIssueLag(now - due, this.intervalNanos);
		return due;
	}

}
