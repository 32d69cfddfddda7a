package io.github.lettucetuning.timeout;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link Ticker} that only moves when told to, so that tests control time exactly and
 * never sleep.
 */
final class ManualTicker implements Ticker {

	// An arbitrary, non-zero origin: timers must only rely on differences.
	private final AtomicLong nanos = new AtomicLong(-7_000_000_000L);

	@Override
	public long nanoTime() {
		return this.nanos.get();
	}

	void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	void advanceNanos(long nanos) {
		this.nanos.addAndGet(nanos);
	}

}
