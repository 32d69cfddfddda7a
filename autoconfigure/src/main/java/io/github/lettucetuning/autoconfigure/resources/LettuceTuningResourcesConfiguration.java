package io.github.lettucetuning.autoconfigure.resources;

import io.github.lettucetuning.autoconfigure.CustomizerOrder;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
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
 * the user's win), and shut down with the context before its timer stops. The one Netty
 * customizer they hold runs the application's, if it set one, and then lettuce-tuning's
 * ({@link NettyCustomizerComposition}).
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningResourcesConfiguration {

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	ThreadsClientResourcesBuilderCustomizer lettuceTuningThreadsCustomizer(LettuceTuningProperties properties) {
		return new ThreadsClientResourcesBuilderCustomizer(properties);
	}

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnMissingBean(ClientResources.class)
	DefaultClientResources lettuceClientResources(ObjectProvider<ClientResourcesBuilderCustomizer> customizers,
			ObjectProvider<NettyCustomizerContribution> contributions, CommandExpiryTimer commandExpiryTimer) {
		DefaultClientResources.Builder builder = DefaultClientResources.builder();
		Timer timer = commandExpiryTimer.timer();
		if (timer != null) {
			builder.timer(timer);
		}
		NettyCustomizerComposition netty = new NettyCustomizerComposition(builder);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(netty.builder()));
		netty.compose(contributions.orderedStream());
		return builder.build();
	}

}
