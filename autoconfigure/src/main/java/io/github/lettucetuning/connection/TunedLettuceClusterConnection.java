package io.github.lettucetuning.connection;

import java.time.Duration;

import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.data.redis.connection.lettuce.LettuceSubscription;

/**
 * The cluster twin of {@link TunedLettuceConnection}.
 */
final class TunedLettuceClusterConnection extends LettuceClusterConnection {

	private final TunedBehaviour tuned;

	TunedLettuceClusterConnection(@Nullable StatefulRedisClusterConnection<byte[], byte[]> shared,
			LettuceConnectionProvider provider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor executor, Duration timeout, @Nullable ConnectionHooks hooks,
			SubscriptionWatch subscriptionWatch) {
		super(shared, provider, topologyProvider, executor, timeout);
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
