package io.github.lettucetuning.autoconfigure.cluster;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import io.github.lettucetuning.cluster.ChannelTracker;
import io.github.lettucetuning.cluster.SentinelFailoverWatcher;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConverters;

/**
 * Runs a {@link SentinelFailoverWatcher} while the application runs, when the connection
 * factory is a Lettuce factory defined through Sentinel. Starts after the factory and
 * stops before it.
 */
final class SentinelFailoverWatcherLifecycle implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(SentinelFailoverWatcherLifecycle.class);

	private final ObjectProvider<RedisConnectionFactory> connectionFactory;

	private final ClientResources clientResources;

	private final ChannelTracker channels;

	private @Nullable RedisClient client;

	private @Nullable SentinelFailoverWatcher watcher;

	// Stopping shuts a client down, which blocks: a lock that does not pin a virtual
	// thread.
	private final ReentrantLock lock = new ReentrantLock();

	SentinelFailoverWatcherLifecycle(ObjectProvider<RedisConnectionFactory> connectionFactory,
			ClientResources clientResources, ChannelTracker channels) {
		this.connectionFactory = connectionFactory;
		this.clientResources = clientResources;
		this.channels = channels;
	}

	@Override
	public void start() {
		this.lock.lock();
		try {
			doStart();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void doStart() {
		if (!(this.connectionFactory.getIfUnique() instanceof LettuceConnectionFactory factory)
				|| !factory.isRedisSentinelAware()) {
			return;
		}
		RedisSentinelConfiguration sentinel = factory.getSentinelConfiguration();
		if (sentinel == null || sentinel.getMaster() == null || sentinel.getMaster().getName() == null) {
			return;
		}
		if (!CompositeNettyCustomizer.includes(this.clientResources.nettyCustomizer(), this.channels)) {
			logger.warn("lettuce-tuning cannot move connections at Sentinel failovers: the client resources, "
					+ "built by the application, lack its channel tracker. Connections follow a new master only "
					+ "when they reconnect.");
			return;
		}
		LettuceClientConfiguration configuration = factory.getClientConfiguration();
		RedisClient redisClient = RedisClient.create(this.clientResources);
		redisClient.setOptions(configuration.getClientOptions().orElseGet(ClientOptions::create));
		this.client = redisClient;
		this.watcher = new SentinelFailoverWatcher(redisClient, sentinel.getMaster().getName(),
				sentinels(sentinel, configuration), this.channels);
		this.watcher.start();
	}

	private static List<RedisURI> sentinels(RedisSentinelConfiguration sentinel,
			LettuceClientConfiguration configuration) {
		List<RedisURI> sentinels = LettuceConverters.sentinelConfigurationToRedisURI(sentinel).getSentinels();
		for (RedisURI uri : sentinels) {
			uri.setSsl(configuration.isUseSsl());
			uri.setVerifyPeer(configuration.getVerifyMode());
			uri.setStartTls(configuration.isStartTls());
			uri.setTimeout(configuration.getCommandTimeout());
			configuration.getClientName().ifPresent(uri::setClientName);
			// Sentinels with credentials of their own get them as the factory's do.
			configuration.getRedisCredentialsProviderFactory()
				.ifPresent((credentials) -> uri
					.setCredentialsProvider(credentials.createSentinelCredentialsProvider(sentinel)));
		}
		return sentinels;
	}

	@Override
	public void stop() {
		this.lock.lock();
		try {
			if (this.watcher != null) {
				this.watcher.close();
				this.watcher = null;
			}
			if (this.client != null) {
				// The resources are shared: shut down the client only
				this.client.shutdown();
				this.client = null;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean isRunning() {
		this.lock.lock();
		try {
			return this.watcher != null;
		}
		finally {
			this.lock.unlock();
		}
	}

	// After the connection factory (phase 0) on start, before it on stop.
	@Override
	public int getPhase() {
		return 1;
	}

}
