package io.github.lettucetuning.benchmarks.support;

import java.util.Map;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies of single operations as the caller sees them, from issue to completion, in an
 * HdrHistogram per iteration. JMH's sample mode would measure whole invocations only, and
 * in a run of its own; recording here gives percentiles next to the throughput and server
 * counters of the same iteration, and per operation even where an invocation issues a
 * thousand of them at once (the reactive cell).
 * <p>
 * Every cell is closed-loop (each caller waits for its replies before issuing more), so
 * the figures are service times under that concurrency: there is no intended schedule to
 * correct coordinated omission against.
 */
public final class OperationLatencies {

	// Three significant digits; the histogram resizes itself for any latency.
	private static final int DIGITS = 3;

	private final Recorder recorder = new Recorder(DIGITS);

	/**
	 * Record one operation; safe from any number of threads.
	 * @param startNanos {@link System#nanoTime()} when the operation was issued
	 */
	public void record(long startNanos) {
		this.recorder.recordValue(Math.max(0, System.nanoTime() - startNanos));
	}

	/**
	 * Forget what was recorded so far: the start of an iteration.
	 */
	void reset() {
		this.recorder.getIntervalHistogram();
	}

	/**
	 * Add the percentiles recorded since the last call (or {@link #reset()}) to a record:
	 * count, p50, p99, p99.9 and max in microseconds. Nothing when nothing was recorded.
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
	}

}
