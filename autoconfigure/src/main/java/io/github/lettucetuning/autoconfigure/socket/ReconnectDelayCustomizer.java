package io.github.lettucetuning.autoconfigure.socket;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties.ReconnectJitter;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Caps the reconnect backoff and randomises it. Lettuce doubles the delay from 1ms up to
 * 30s, so a node that stays down is retried ever more rarely; in a cluster, retries are
 * what trigger the topology refresh that finds the promoted replica. Without jitter,
 * every instance of an application that lost the same server retries at the same moments,
 * and the server that comes back meets them all at once.
 */
final class ReconnectDelayCustomizer implements ClientResourcesBuilderCustomizer {

	// The doubling starts here: a first retry within a few milliseconds catches a CLIENT
	// KILL.
	private static final long BASE_MILLIS = 8;

	private final Duration maxDelay;

	private final ReconnectJitter jitter;

	ReconnectDelayCustomizer(Duration maxDelay, ReconnectJitter jitter) {
		this.maxDelay = maxDelay;
		this.jitter = jitter;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		switch (this.jitter) {
			case FULL -> builder
				.reconnectDelay(Delay.fullJitter(Duration.ZERO, this.maxDelay, BASE_MILLIS, TimeUnit.MILLISECONDS));
			case DECORRELATED -> builder.reconnectDelay(
					Delay.decorrelatedJitter(Duration.ZERO, this.maxDelay, BASE_MILLIS, TimeUnit.MILLISECONDS));
			case NONE ->
				builder.reconnectDelay(Delay.exponential(Duration.ZERO, this.maxDelay, 2, TimeUnit.MILLISECONDS));
		}
	}

}
