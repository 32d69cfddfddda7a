package io.github.lettucetuning.autoconfigure.cluster;

import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
import io.github.lettucetuning.cluster.ChannelTracker;
import io.lettuce.core.resource.NettyCustomizer;
import io.lettuce.core.tracing.Tracing;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;

/**
 * Contributes the {@link ChannelTracker} to the client resources' Netty customizer when
 * Redis is reached through Sentinel ({@code spring.data.redis.sentinel.*}, connection
 * details or a {@link RedisSentinelConfiguration} bean), so that connections can be moved
 * at a failover. Other modes do not track channels.
 */
final class SentinelChannelTracking implements NettyCustomizerContribution {

	private final ChannelTracker channels;

	private final ObjectProvider<DataRedisConnectionDetails> connectionDetails;

	private final ObjectProvider<RedisSentinelConfiguration> sentinelConfiguration;

	SentinelChannelTracking(ChannelTracker channels, ObjectProvider<DataRedisConnectionDetails> connectionDetails,
			ObjectProvider<RedisSentinelConfiguration> sentinelConfiguration) {
		this.channels = channels;
		this.connectionDetails = connectionDetails;
		this.sentinelConfiguration = sentinelConfiguration;
	}

	@Override
	public @Nullable NettyCustomizer customizer(Tracing tracing) {
		return isSentinel() ? this.channels : null;
	}

	private boolean isSentinel() {
		if (this.sentinelConfiguration.getIfAvailable() != null) {
			return true;
		}
		DataRedisConnectionDetails details = this.connectionDetails.getIfAvailable();
		return details != null && details.getSentinel() != null;
	}

}
