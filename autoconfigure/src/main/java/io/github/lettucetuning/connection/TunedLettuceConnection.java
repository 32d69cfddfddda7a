package io.github.lettucetuning.connection;

import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.data.redis.connection.lettuce.LettuceSubscription;

/**
 * Reports failed commands and the end of each operation to the hooks; the behaviour lives
 * in {@link TunedBehaviour}, shared with {@link TunedLettuceClusterConnection}.
 */
final class TunedLettuceConnection extends LettuceConnection {

	private final TunedBehaviour tuned;

	TunedLettuceConnection(@Nullable StatefulRedisConnection<byte[], byte[]> shared, LettuceConnectionProvider provider,
			long timeout, int database, @Nullable ConnectionHooks hooks, SubscriptionWatch subscriptionWatch) {
		super(shared, provider, timeout, database);
		this.tuned = new TunedBehaviour(hooks, subscriptionWatch);
	}

	@Override
	protected LettuceSubscription doCreateSubscription(MessageListener listener,
			StatefulRedisPubSubConnection<byte[], byte[]> connection, LettuceConnectionProvider provider) {
		return this.tuned.subscription(listener, connection, provider);
	}

	@Override
	protected DataAccessException convertLettuceAccessException(Exception cause) {
		return this.tuned.translate(cause, super::convertLettuceAccessException);
	}

	@Override
	public void close() {
		try {
			super.close();
		}
		finally {
			this.tuned.closed();
		}
	}

}
