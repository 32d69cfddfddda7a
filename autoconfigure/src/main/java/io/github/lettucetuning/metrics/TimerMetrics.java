package io.github.lettucetuning.metrics;

import java.util.function.Supplier;

import io.github.lettucetuning.state.TimerSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * Binds the meters of the timer that expires Lettuce commands:
 * {@code lettuce.tuning.timer.pending}, the timeouts scheduled and neither expired nor
 * cancelled (for lettuce-tuning's {@code WheelTimer} and Netty's
 * {@code HashedWheelTimer}), and {@code lettuce.tuning.timer.expired}, the timeouts that
 * fired (for the {@code WheelTimer} only). Other timers get no meters. The meters read a
 * {@link TimerSnapshot}, usually the one in the client's state, when scraped.
 *
 * @since 0.1.0
 */
public final class TimerMetrics implements MeterBinder {

	private final Supplier<TimerSnapshot> timer;

	/**
	 * Create a binder over the given snapshots of the timer.
	 * @param timer supplies the timer's counts as they are now (usually
	 * {@code () -> reader.read().timer()})
	 */
	public TimerMetrics(Supplier<TimerSnapshot> timer) {
		this.timer = timer;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		String type = this.timer.get().type();
		if (type == null) {
			return;
		}
		Gauge.builder("lettuce.tuning.timer.pending", this.timer, (timer) -> count(timer.get().pending()))
			.description("Timeouts scheduled and neither expired nor cancelled")
			.baseUnit("timeouts")
			.tag("type", type)
			.register(registry);
		if (this.timer.get().expired() != null) {
			FunctionCounter.builder("lettuce.tuning.timer.expired", this.timer, (timer) -> count(timer.get().expired()))
				.description("Timeouts that fired: expired commands, reconnect delays and other Lettuce timeouts")
				.baseUnit("timeouts")
				.tag("type", type)
				.register(registry);
		}
	}

	private static double count(@Nullable Long count) {
		return (count != null) ? count : 0;
	}

}
