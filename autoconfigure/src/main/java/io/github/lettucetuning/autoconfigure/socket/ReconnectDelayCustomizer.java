package io.github.lettucetuning.autoconfigure.socket;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Caps the reconnect backoff. Lettuce doubles the delay from 1ms up to 30s, so a node
 * that stays down is retried ever more rarely; in a cluster, retries are what trigger
 * the topology refresh that finds the promoted replica.
 *
 * @author lettuce-tuning
 */
final class ReconnectDelayCustomizer implements ClientResourcesBuilderCustomizer {

	private final Duration maxDelay;

	ReconnectDelayCustomizer(Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		builder.reconnectDelay(Delay.exponential(Duration.ZERO, this.maxDelay, 2, TimeUnit.MILLISECONDS));
	}

}
