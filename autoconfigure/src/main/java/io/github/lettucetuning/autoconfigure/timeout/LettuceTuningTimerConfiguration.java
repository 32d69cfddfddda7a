package io.github.lettucetuning.autoconfigure.timeout;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.timeout.WheelTimer;
import io.github.lettucetuning.timeout.WheelTimerOptions;
import io.netty.util.Timer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Chooses the timer that expires commands: a Netty {@link Timer} bean of the user's
 * (shared), lettuce-tuning's {@link WheelTimer} (owned, the default) or Lettuce's stock
 * timer.
 *
 * @author lettuce-tuning
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningTimerConfiguration {

	@Bean
	@ConditionalOnMissingBean
	CommandExpiryTimer lettuceTuningCommandExpiryTimer(LettuceTuningProperties properties,
			ObjectProvider<Timer> userTimer) {
		Timer shared = userTimer.getIfUnique();
		if (shared != null) {
			return CommandExpiryTimer.shared(shared);
		}
		LettuceTuningProperties.Timer timer = properties.getTimer();
		if (timer.getType() == LettuceTuningProperties.TimerType.NETTY) {
			return CommandExpiryTimer.lettuceDefault();
		}
		WheelTimerOptions options = wheelTimerOptions(timer);
		return CommandExpiryTimer.owned(() -> new WheelTimer(options));
	}

	static WheelTimerOptions wheelTimerOptions(LettuceTuningProperties.Timer timer) {
		WheelTimerOptions.Builder builder = WheelTimerOptions.builder();
		Duration tick = timer.getTick();
		apply("lettuce.tuning.timer.tick", tick, builder::tickDuration);
		Integer wheelSize = timer.getWheelSize();
		if (wheelSize != null) {
			apply("lettuce.tuning.timer.wheel-size", wheelSize, builder::wheelSize);
		}
		Long maxPending = timer.getMaxPending();
		if (maxPending != null) {
			apply("lettuce.tuning.timer.max-pending", maxPending, builder::maxPendingTimeouts);
		}
		return builder.build();
	}

	// The options validate eagerly; their message becomes the reason, the property is ours to name.
	private static <T> void apply(String property, T value, Consumer<T> setter) {
		try {
			setter.accept(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidTuningPropertyException(property, value, ex.getMessage(),
					"Set " + property + " to a supported value, or remove it to use the default.");
		}
	}

}
