package io.github.lettucetuning.benchmarks.support;

import java.util.Map;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies of single operations as the caller sees them, in an HdrHistogram per
 * iteration. JMH's sample mode would measure whole invocations only, and in a run of its
 * own; recording here gives percentiles next to the throughput and server counters of the
 * same iteration, and per operation even where an invocation issues a thousand of them at
 * once (the reactive cell).
 * <p>
 * Closed-loop cells (each caller waits for its replies before issuing more) record from
 * issue to completion: service times under that concurrency, with no intended schedule to
 * correct coordinated omission against. The open-loop cell issues on a fixed schedule
 * (see {@link OpenLoopSchedule}) and records from each operation's intended start, so its
 * figures include the time operations waited behind a late reply. It also notes how far
 * behind schedule operations were issued: a setup that cannot keep up with the rate does
 * not fail, it falls further behind.
 */
public final class OperationLatencies {

	// Three significant digits; the histogram resizes itself for any latency.
	private static final int DIGITS = 3;

	private final Recorder recorder = new Recorder(DIGITS);

	private final LongAdder scheduled = new LongAdder();

	private final LongAdder late = new LongAdder();

	private final LongAccumulator maxLagNanos = new LongAccumulator(Math::max, 0);

	private volatile long intervalNanos;

	/**
	 * Record one operation; safe from any number of threads.
	 * @param startNanos {@link System#nanoTime()} when the operation was issued
	 */
	public void record(long startNanos) {
		this.recorder.recordValue(Math.max(0, System.nanoTime() - startNanos));
	}

	/**
	 * Record one operation of an open-loop schedule from when it was due, not from when
	 * it was issued; safe from any number of threads.
	 * @param intendedNanos {@link System#nanoTime()} when the schedule meant to issue the
	 * operation
	 */
	public void recordFromIntended(long intendedNanos) {
		record(intendedNanos);
	}

	/**
	 * Note how long after it was due an operation of an open-loop schedule was issued;
	 * safe from any number of threads.
	 * @param lagNanos time from when the operation was due to when it was issued
	 * @param intervalNanos the schedule's interval between one thread's operations: an
	 * operation is late when issued after the next one was due
	 */
	public void recordIssueLag(long lagNanos, long intervalNanos) {
		// Written once per schedule, not once per operation from every thread: a shared
		// volatile written by 16 threads would bounce its cache line on each SET
		// measured.
		if (this.intervalNanos != intervalNanos) {
			this.intervalNanos = intervalNanos;
		}
		this.scheduled.increment();
		this.maxLagNanos.accumulate(lagNanos);
		if (lagNanos > intervalNanos) {
			this.late.increment();
		}
	}

	/**
	 * Forget what was recorded so far: the start of an iteration.
	 */
	void reset() {
		this.recorder.getIntervalHistogram();
		this.scheduled.reset();
		this.late.reset();
		this.maxLagNanos.reset();
	}

	/**
	 * Add the percentiles recorded since the last call (or {@link #reset()}) to a record:
	 * count, p50, p99, p99.9 and max in microseconds; for an open-loop schedule also its
	 * interval per thread, the operations issued late and the largest lag in issuing one.
	 * Nothing when nothing was recorded.
	 * @param record the side-file record
	 */
	void addTo(Map<String, Object> record) {
		Histogram histogram = this.recorder.getIntervalHistogram();
		if (histogram.getTotalCount() == 0) {
			return;
		}
		record.put("latencyCount", histogram.getTotalCount());
		record.put("p50Us", histogram.getValueAtPercentile(50) / 1e3);
		record.put("p99Us", histogram.getValueAtPercentile(99) / 1e3);
		record.put("p999Us", histogram.getValueAtPercentile(99.9) / 1e3);
		record.put("maxUs", histogram.getMaxValue() / 1e3);
		if (this.scheduled.sumThenReset() > 0) {
			record.put("intervalUs", this.intervalNanos / 1e3);
			record.put("lateCount", this.late.sumThenReset());
			record.put("maxLagUs", this.maxLagNanos.getThenReset() / 1e3);
		}
	}

}
