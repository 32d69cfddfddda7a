package io.github.lettucetuning.autoconfigure.cluster;

import io.github.lettucetuning.cluster.ChannelTracker;
import io.github.lettucetuning.cluster.SentinelFailoverWatcher;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;

/**
 * Follows Sentinel failovers at once: a {@link SentinelFailoverWatcher} closes the
 * connections to a replaced master when Sentinel announces the switch, so that they
 * reconnect to the new one.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "lettuce.tuning.sentinel.follow-switch-master", matchIfMissing = true)
public final class LettuceTuningSentinelConfiguration {

	@Bean
	ChannelTracker lettuceTuningChannelTracker() {
		return new ChannelTracker();
	}

	@Bean
	SentinelChannelTracking lettuceTuningSentinelChannelTracking(ChannelTracker channels,
			ObjectProvider<DataRedisConnectionDetails> connectionDetails,
			ObjectProvider<RedisSentinelConfiguration> sentinelConfiguration) {
		return new SentinelChannelTracking(channels, connectionDetails, sentinelConfiguration);
	}

	@Bean
	SentinelFailoverWatcherLifecycle lettuceTuningSentinelFailoverWatcher(
			ObjectProvider<RedisConnectionFactory> connectionFactory, ClientResources clientResources,
			ChannelTracker channels) {
		return new SentinelFailoverWatcherLifecycle(connectionFactory, clientResources, channels);
	}

}
