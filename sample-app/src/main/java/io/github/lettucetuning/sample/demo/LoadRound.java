package io.github.lettucetuning.sample.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Drives the shop with many threads for a warm-up and a measured period, printing a live
 * line each second, and reports throughput, p99 latency and errors.
 */
class LoadRound {

	private final ShopWorkload workload;

	private final int threads;

	private final PrintStream out;

	private final LongAdder requests = new LongAdder();

	private final LongAdder errors = new LongAdder();

	private final Recorder latencies = new Recorder(3);

	private volatile boolean running = true;

	LoadRound(ShopWorkload workload, int threads, PrintStream out) {
		this.workload = workload;
		this.threads = threads;
		this.out = out;
	}

	/**
	 * Run the round.
	 * @param setup the setup's name, for the live line
	 * @param warmup how long to run before measuring
	 * @param duration how long to measure
	 * @return what was measured, without the connection count
	 */
	Measurement measure(String setup, Duration warmup, Duration duration) throws InterruptedException {
		List<Thread> senders = startSenders();
		try {
			Thread.sleep(warmup.toMillis());
			this.latencies.getIntervalHistogram();
			long requestsBefore = this.requests.sum();
			long errorsBefore = this.errors.sum();
			Histogram total = new Histogram(3);
			long previous = requestsBefore;
			for (long second = 1; second <= duration.toSeconds(); second++) {
				Thread.sleep(1000);
				Histogram interval = this.latencies.getIntervalHistogram();
				total.add(interval);
				long now = this.requests.sum();
				this.out.printf("\r  %-8s %3ds  %,9d requests/s  p99 %6.2f ms  %,d errors   ", setup, second,
						now - previous, interval.getValueAtPercentile(99) / 1000.0, this.errors.sum() - errorsBefore);
				this.out.flush();
				previous = now;
			}
			if (duration.toSeconds() > 0) {
				this.out.println();
			}
			long measured = previous - requestsBefore;
			return new Measurement(measured / Math.max(1, duration.toSeconds()),
					total.getValueAtPercentile(99) / 1000.0, this.errors.sum() - errorsBefore);
		}
		finally {
			stop(senders);
		}
	}

	private List<Thread> startSenders() {
		List<Thread> senders = new ArrayList<>();
		for (int i = 0; i < this.threads; i++) {
			Thread thread = new Thread(this::sendRequests, "demo-" + i);
			thread.setDaemon(true);
			thread.start();
			senders.add(thread);
		}
		return senders;
	}

	private void sendRequests() {
		while (this.running) {
			long start = System.nanoTime();
			try {
				this.workload.request();
				this.requests.increment();
			}
			catch (RuntimeException ex) {
				this.errors.increment();
			}
			this.latencies.recordValue(Math.max(1, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start)));
		}
	}

	private void stop(List<Thread> senders) throws InterruptedException {
		this.running = false;
		for (Thread sender : senders) {
			sender.join(TimeUnit.SECONDS.toMillis(5));
		}
	}

	/**
	 * Throughput, latency and errors of a round.
	 *
	 * @param requestsPerSecond completed requests per second
	 * @param p99Millis the 99th percentile latency in milliseconds
	 * @param errors failed requests
	 */
	record Measurement(long requestsPerSecond, double p99Millis, long errors) {

	}

}
