package io.github.lettucetuning.connection;

import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.data.redis.connection.lettuce.LettuceSubscription;

/**
 * A Spring Data subscription whose Pub/Sub connection a {@link SubscriptionWatch} follows
 * from its first {@code SUBSCRIBE} until the subscription is closed, when the connection
 * goes back to its provider.
 */
final class WatchedLettuceSubscription extends LettuceSubscription {

	private final SubscriptionWatch.Registration registration;

	WatchedLettuceSubscription(MessageListener listener, StatefulRedisPubSubConnection<byte[], byte[]> connection,
			LettuceConnectionProvider connectionProvider, SubscriptionWatch watch) {
		super(listener, connection, connectionProvider);
		this.registration = watch.watch(connection);
	}

	@Override
	protected void doClose() {
		try {
			super.doClose();
		}
		finally {
			this.registration.cancel();
		}
	}

}
