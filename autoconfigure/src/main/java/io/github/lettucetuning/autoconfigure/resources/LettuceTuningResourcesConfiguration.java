package io.github.lettucetuning.autoconfigure.resources;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.timeout.CommandExpiryTimer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.Timer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Publishes the Lettuce {@link ClientResources} in place of Spring Boot's, built with the
 * command-expiry timer and every {@link ClientResourcesBuilderCustomizer} (ours first, so
 * the user's win), and shut down with the context before its timer stops.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningResourcesConfiguration {

	/**
	 * The order of lettuce-tuning's own resource customizer: early, so that customizers
	 * without an order, the usual case for the user's, run after it.
	 */
	public static final int CUSTOMIZER_ORDER = 0;

	@Bean
	@Order(CUSTOMIZER_ORDER)
	ThreadsClientResourcesBuilderCustomizer lettuceTuningThreadsCustomizer(LettuceTuningProperties properties) {
		return new ThreadsClientResourcesBuilderCustomizer(properties);
	}

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnMissingBean(ClientResources.class)
	DefaultClientResources lettuceClientResources(ObjectProvider<ClientResourcesBuilderCustomizer> customizers,
			CommandExpiryTimer commandExpiryTimer) {
		DefaultClientResources.Builder builder = DefaultClientResources.builder();
		Timer timer = commandExpiryTimer.timer();
		if (timer != null) {
			builder.timer(timer);
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

}
