package io.github.lettucetuning.metrics;

import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.state.TimerSnapshot;
import io.github.lettucetuning.timeout.WheelTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TimerMetrics}.
 */
class TimerMetricsTests {

	private final MeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void wheelTimerHasPendingAndExpiredMeters() {
		WheelTimer timer = new WheelTimer();
		try {
			new TimerMetrics(() -> TimerSnapshot.of(timer)).bindTo(this.registry);
			Timeout timeout = timer.newTimeout((t) -> {
			}, 1, TimeUnit.HOURS);
			assertThat(this.registry.get("lettuce.tuning.timer.pending").tag("type", "wheel").gauge().value()).isOne();
			timeout.cancel();
			assertThat(this.registry.get("lettuce.tuning.timer.pending").gauge().value()).isZero();
			assertThat(this.registry.get("lettuce.tuning.timer.expired").functionCounter().count()).isZero();
		}
		finally {
			timer.stop();
		}
	}

	@Test
	void nettyTimerHasOnlyAPendingGauge() {
		HashedWheelTimer timer = new HashedWheelTimer();
		try {
			new TimerMetrics(() -> TimerSnapshot.of(timer)).bindTo(this.registry);
			assertThat(this.registry.get("lettuce.tuning.timer.pending").tag("type", "netty").gauge()).isNotNull();
			assertThat(this.registry.find("lettuce.tuning.timer.expired").meters()).isEmpty();
		}
		finally {
			timer.stop();
		}
	}

	@Test
	void otherTimersHaveNoMeters() {
		Timer timer = new Timer() {

			@Override
			public Timeout newTimeout(io.netty.util.TimerTask task, long delay, TimeUnit unit) {
				throw new UnsupportedOperationException();
			}

			@Override
			public java.util.Set<Timeout> stop() {
				return java.util.Set.of();
			}

		};
		new TimerMetrics(() -> TimerSnapshot.of(timer)).bindTo(this.registry);
		assertThat(this.registry.getMeters()).isEmpty();
	}

}
