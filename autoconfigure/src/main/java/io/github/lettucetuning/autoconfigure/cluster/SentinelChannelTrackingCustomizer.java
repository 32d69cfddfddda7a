package io.github.lettucetuning.autoconfigure.cluster;

import io.github.lettucetuning.cluster.ChannelTracker;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;

/**
 * Registers the {@link ChannelTracker} with the client resources when Redis is reached
 * through Sentinel ({@code spring.data.redis.sentinel.*}, connection details or a
 * {@link RedisSentinelConfiguration} bean), so that connections can be moved at a
 * failover. Other modes keep the resources' Netty customizer slot free.
 *
 * @author lettuce-tuning
 */
final class SentinelChannelTrackingCustomizer implements ClientResourcesBuilderCustomizer {

	private final ChannelTracker channels;

	private final ObjectProvider<DataRedisConnectionDetails> connectionDetails;

	private final ObjectProvider<RedisSentinelConfiguration> sentinelConfiguration;

	SentinelChannelTrackingCustomizer(ChannelTracker channels, ObjectProvider<DataRedisConnectionDetails> connectionDetails,
			ObjectProvider<RedisSentinelConfiguration> sentinelConfiguration) {
		this.channels = channels;
		this.connectionDetails = connectionDetails;
		this.sentinelConfiguration = sentinelConfiguration;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		if (isSentinel()) {
			builder.nettyCustomizer(this.channels);
		}
	}

	private boolean isSentinel() {
		if (this.sentinelConfiguration.getIfAvailable() != null) {
			return true;
		}
		DataRedisConnectionDetails details = this.connectionDetails.getIfAvailable();
		return details != null && details.getSentinel() != null;
	}

}
