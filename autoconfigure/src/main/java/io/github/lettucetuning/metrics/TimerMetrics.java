package io.github.lettucetuning.metrics;

import java.util.function.ToLongFunction;

import io.github.lettucetuning.timeout.WheelTimer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;

/**
 * Binds the meters of the timer that expires Lettuce commands:
 * {@code lettuce.tuning.timer.pending}, the timeouts scheduled and neither expired nor
 * cancelled (for lettuce-tuning's {@link WheelTimer} and Netty's
 * {@link HashedWheelTimer}), and {@code lettuce.tuning.timer.expired}, the timeouts that
 * fired (for the {@link WheelTimer} only). Other timers get no meters.
 *
 * @since 0.1.0
 */
public final class TimerMetrics implements MeterBinder {

	private final Timer timer;

	/**
	 * Create a binder for the given timer.
	 * @param timer the timer of the client resources
	 */
	public TimerMetrics(Timer timer) {
		this.timer = timer;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		if (this.timer instanceof WheelTimer wheel) {
			pending(registry, wheel, WheelTimer::pendingTimeouts, "wheel");
			FunctionCounter.builder("lettuce.tuning.timer.expired", wheel, WheelTimer::expiredTimeouts)
				.description("Timeouts that fired: expired commands, reconnect delays and other Lettuce timeouts")
				.baseUnit("timeouts")
				.tag("type", "wheel")
				.register(registry);
		}
		else if (this.timer instanceof HashedWheelTimer hashed) {
			pending(registry, hashed, HashedWheelTimer::pendingTimeouts, "netty");
		}
	}

	private static <T> void pending(MeterRegistry registry, T timer, ToLongFunction<T> pending, String type) {
		Gauge.builder("lettuce.tuning.timer.pending", timer, (t) -> pending.applyAsLong(t))
			.description("Timeouts scheduled and neither expired nor cancelled")
			.baseUnit("timeouts")
			.tag("type", type)
			.register(registry);
	}

}
