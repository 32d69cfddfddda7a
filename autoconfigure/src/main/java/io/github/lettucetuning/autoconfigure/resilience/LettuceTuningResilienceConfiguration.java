package io.github.lettucetuning.autoconfigure.resilience;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.socket.LettuceTuningSocketConfiguration;
import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.resilience.OutageOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Bounds what a Redis outage costs callers: an {@link OutageGuard} on every connection
 * (fail fast after a grace, stall detection) and a bounded request queue.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningResilienceConfiguration {

	@Bean
	OutageGuard lettuceTuningOutageGuard(LettuceTuningProperties properties) {
		LettuceTuningProperties.Resilience resilience = properties.getResilience();
		return new OutageGuard(
				new OutageOptions(resilience.getFailFast().isEnabled(), resilience.getFailFast().getGrace(),
						resilience.getStallDetection().isEnabled(), resilience.getStallDetection().getTimeout()));
	}

	@Bean
	NettyCustomizerContribution lettuceTuningOutageGuardContribution(OutageGuard guard) {
		OutageOptions options = guard.options();
		@Nullable OutageGuard applied = (options.failFast() || options.stallDetection()) ? guard : null;
		return () -> applied;
	}

	@Bean
	@Order(LettuceTuningSocketConfiguration.CUSTOMIZER_ORDER)
	LettuceClientOptionsBuilderCustomizer lettuceTuningRequestQueueCustomizer(LettuceTuningProperties properties) {
		int requestQueueSize = properties.getResilience().getRequestQueueSize();
		return (builder) -> builder.requestQueueSize(requestQueueSize);
	}

}
