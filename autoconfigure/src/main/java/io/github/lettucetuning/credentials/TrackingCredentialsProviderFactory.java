package io.github.lettucetuning.credentials;

import io.lettuce.core.RedisCredentialsProvider;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

/**
 * The factory Spring Data asks for the credentials of every connection the client opens:
 * data nodes (standalone, Sentinel-managed master and replicas, cluster seeds, whose
 * credentials Lettuce also uses for the nodes it discovers) and Sentinels. The data
 * nodes' provider is tracked by a {@link CredentialsTracker}; a Sentinel's is not, since
 * Sentinels usually have users of their own.
 *
 * @since 0.1.0
 */
public final class TrackingCredentialsProviderFactory implements RedisCredentialsProviderFactory {

	private final RedisCredentialsProviderFactory delegate;

	private final CredentialsTracker tracker;

	private TrackingCredentialsProviderFactory(RedisCredentialsProviderFactory delegate, CredentialsTracker tracker) {
		this.delegate = delegate;
		this.tracker = tracker;
	}

	/**
	 * Track the data-node credentials of an application's factory; Sentinels get what the
	 * factory gives them.
	 * @param factory the application's factory
	 * @param tracker the tracker
	 * @return the tracking factory
	 */
	public static TrackingCredentialsProviderFactory of(RedisCredentialsProviderFactory factory,
			CredentialsTracker tracker) {
		return new TrackingCredentialsProviderFactory(factory, tracker);
	}

	/**
	 * Use one provider for every data node; Sentinels keep the credentials of the
	 * Sentinel configuration ({@code spring.data.redis.sentinel.username} and
	 * {@code password}), as Spring Data's default factory gives them.
	 * @param provider the application's provider
	 * @param tracker the tracker
	 * @return the tracking factory
	 */
	public static TrackingCredentialsProviderFactory of(RedisCredentialsProvider provider, CredentialsTracker tracker) {
		return new TrackingCredentialsProviderFactory(new SingleProviderFactory(provider), tracker);
	}

	@Override
	public RedisCredentialsProvider createCredentialsProvider(RedisConfiguration configuration) {
		return this.tracker.track(this.delegate.createCredentialsProvider(configuration));
	}

	@Override
	public RedisCredentialsProvider createSentinelCredentialsProvider(RedisSentinelConfiguration configuration) {
		return this.delegate.createSentinelCredentialsProvider(configuration);
	}

	// Only the data nodes' method is overridden: the Sentinels' keeps Spring Data's
	// default.
	private record SingleProviderFactory(RedisCredentialsProvider provider) implements RedisCredentialsProviderFactory {

		@Override
		public RedisCredentialsProvider createCredentialsProvider(RedisConfiguration configuration) {
			return this.provider;
		}

	}

}
