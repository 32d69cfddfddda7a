package io.github.lettucetuning.autoconfigure.socket;

import java.util.Locale;

import io.github.lettucetuning.autoconfigure.CustomizerOrder;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.socket.ClientAddressResolver;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.socket.FlushConsolidation;
import io.github.lettucetuning.socket.NativeTransports;
import io.github.lettucetuning.socket.NettyTransport;
import io.lettuce.core.resource.ExtendedKeepAliveSupport;
import io.netty.handler.flush.FlushConsolidationHandler;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.ResourceLoader;

/**
 * Chooses the Netty transport, applies TCP_USER_TIMEOUT to every Lettuce connection,
 * publishing the {@link EffectiveSocketSettings} that took effect, merges the flushes of
 * concurrent commands ({@link FlushConsolidation}), caps the reconnect backoff, and gives
 * the client a resolver whose answers are reused for a bounded time
 * ({@link ClientAddressResolver}).
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningSocketConfiguration {

	private static final Log logger = LogFactory.getLog(LettuceTuningSocketConfiguration.class);

	@Bean
	static TransportSelectingPostProcessor lettuceTuningTransportSelector() {
		return new TransportSelectingPostProcessor();
	}

	@Bean
	EffectiveSocketSettings lettuceTuningSocketSettings(LettuceTuningProperties properties,
			ResourceLoader resourceLoader) {
		NettyTransport transport = NativeTransports.inUse(resourceLoader.getClassLoader());
		EffectiveSocketSettings settings = SocketSettingsResolver.resolve(properties.getSocket(), transport,
				ExtendedKeepAliveSupport.isSupported());
		String reason = settings.inactiveReason();
		if (reason != null) {
			// One line; a warning where adding the epoll library would fix it
			String message = "lettuce-tuning: " + reason + " (" + settings.describe() + "). On Linux, add "
					+ "io.netty:netty-transport-native-epoll:linux-x86_64 (or linux-aarch_64) to bound how long a "
					+ "dead Redis host without a TCP reset can stall a connection.";
			if (isLinux()) {
				logger.warn(message);
			}
			else {
				logger.info(message);
			}
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("lettuce-tuning socket settings: " + settings.describe());
		}
		return settings;
	}

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	SocketOptionsBuilderCustomizer lettuceTuningSocketOptionsCustomizer(EffectiveSocketSettings settings,
			LettuceTuningProperties properties, ObjectProvider<DataRedisProperties> redisProperties) {
		DataRedisProperties redis = redisProperties.getIfAvailable();
		return new SocketOptionsBuilderCustomizer(settings, properties.getSocket().getTcpUserTimeout().getDuration(),
				redis != null && redis.getConnectTimeout() != null);
	}

	@Bean
	NettyCustomizerContribution lettuceTuningFlushConsolidation(LettuceTuningProperties properties) {
		LettuceTuningProperties.FlushConsolidation flush = properties.getSocket().getFlushConsolidation();
		@Nullable FlushConsolidation consolidation = flush.isEnabled()
				? new FlushConsolidation(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES) : null;
		return (tracing) -> consolidation;
	}

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	ReconnectDelayCustomizer lettuceTuningReconnectDelayCustomizer(LettuceTuningProperties properties) {
		LettuceTuningProperties.Reconnect reconnect = properties.getResilience().getReconnect();
		return new ReconnectDelayCustomizer(reconnect.getMaxDelay(), reconnect.getJitter());
	}

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	@ConditionalOnBooleanProperty(name = "lettuce.tuning.dns.enabled", matchIfMissing = true)
	AddressResolverCustomizer lettuceTuningAddressResolverCustomizer(LettuceTuningProperties properties) {
		return new AddressResolverCustomizer(ClientAddressResolver.create(properties.getDns().getMaxTtl()));
	}

	private static boolean isLinux() {
		return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
	}

}
