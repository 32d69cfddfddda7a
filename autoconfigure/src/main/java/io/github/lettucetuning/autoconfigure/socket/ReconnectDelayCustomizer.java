package io.github.lettucetuning.autoconfigure.socket;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
 * <p>
 * The first attempt goes at once: a connection lost while its server is up (a
 * {@code CLIENT KILL}, a proxy's idle timeout, a load balancer's reset) is back within a
 * round trip, as with Lettuce's 1ms. The backoff and its jitter start with the second
 * attempt, once the server has refused the first.
 */
final class ReconnectDelayCustomizer implements ClientResourcesBuilderCustomizer {

	// The doubling starts here, at the second attempt.
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
			case FULL -> builder.reconnectDelay(new FirstAttemptAtOnce(
					Delay.fullJitter(Duration.ZERO, this.maxDelay, BASE_MILLIS, TimeUnit.MILLISECONDS)));
			case DECORRELATED -> {
				// Stateful: each connection's watchdog takes a delay of its own.
				Supplier<Delay> decorrelated = Delay.decorrelatedJitter(Duration.ZERO, this.maxDelay, BASE_MILLIS,
						TimeUnit.MILLISECONDS);
				builder.reconnectDelay(() -> new FirstAttemptAtOnce(decorrelated.get()));
			}
			case NONE -> builder.reconnectDelay(
					new FirstAttemptAtOnce(Delay.exponential(Duration.ZERO, this.maxDelay, 2, TimeUnit.MILLISECONDS)));
		}
	}

	/**
	 * No delay for a connection's first attempt after it was lost; the given backoff from
	 * the second, counted from its first.
	 */
	static final class FirstAttemptAtOnce extends Delay {

		private final Delay backoff;

		FirstAttemptAtOnce(Delay backoff) {
			this.backoff = backoff;
		}

		@Override
		public Duration createDelay(long attempt) {
			return (attempt <= 1) ? Duration.ZERO : this.backoff.createDelay(attempt - 1);
		}

	}

}
