package io.github.lettucetuning.autoconfigure.timeout;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
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

	// The properties validated these values when they were bound.
	static WheelTimerOptions wheelTimerOptions(LettuceTuningProperties.Timer timer) {
		WheelTimerOptions.Builder builder = WheelTimerOptions.builder().tickDuration(timer.getTick());
		Integer wheelSize = timer.getWheelSize();
		if (wheelSize != null) {
			builder.wheelSize(wheelSize);
		}
		Long maxPending = timer.getMaxPending();
		if (maxPending != null) {
			builder.maxPendingTimeouts(maxPending);
		}
		return builder.build();
	}

}
