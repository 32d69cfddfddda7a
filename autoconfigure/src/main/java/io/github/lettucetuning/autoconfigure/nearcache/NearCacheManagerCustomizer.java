package io.github.lettucetuning.autoconfigure.nearcache;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.nearcache.InvalidationTracking;
import io.github.lettucetuning.nearcache.NearCacheWriter;
import io.github.lettucetuning.nearcache.NearCaches;
import io.github.lettucetuning.nearcache.SharedValueSerialization;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.core.Ordered;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager.RedisCacheManagerBuilder;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Puts a {@link NearCacheWriter} in the place of the builder's cache writer, delegating
 * to a non-locking writer on the same connection factory, as Spring Boot's is, and hands
 * it to the {@link NearCaches} the read side shows. Owns the writer's tracking connection
 * and closes it with the context.
 * <p>
 * Runs after the application's customizers, so that the value serialisations it wraps in
 * a {@link SharedValueSerialization} are the final ones.
 */
class NearCacheManagerCustomizer implements RedisCacheManagerBuilderCustomizer, DisposableBean, Ordered {

	private static final String ALL = "*";

	private final Supplier<@Nullable RedisConnectionFactory> connectionFactory;

	private final LettuceTuningProperties.NearCache properties;

	private final NearCaches nearCaches;

	private @Nullable NearCacheWriter writer;

	NearCacheManagerCustomizer(Supplier<@Nullable RedisConnectionFactory> connectionFactory,
			LettuceTuningProperties.NearCache properties, NearCaches nearCaches) {
		this.connectionFactory = connectionFactory;
		this.properties = properties;
		this.nearCaches = nearCaches;
	}

	@Override
	public void customize(RedisCacheManagerBuilder builder) {
		RedisConnectionFactory factory = this.connectionFactory.get();
		if (factory == null) {
			return;
		}
		List<String> caches = List.copyOf(this.properties.getCaches());
		Predicate<String> cached = caches.contains(ALL) ? (name) -> true : Set.copyOf(caches)::contains;
		NearCacheWriter created = NearCacheWriter.create(RedisCacheWriter.nonLockingRedisCacheWriter(factory), cached,
				this.nearCaches.bound(), (invalidations) -> new InvalidationTracking(() -> client(factory),
						() -> prefixes(builder, caches), invalidations));
		closeWriter();
		this.writer = created;
		this.nearCaches.use(created);
		builder.cacheWriter(created);
		shareValues(builder, cached);
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	// The defaults too: caches created on the fly take them. Caches without a near cache
	// never meet a value it served, and read as before.
	private void shareValues(RedisCacheManagerBuilder builder, Predicate<String> cached) {
		boolean storeByValue = this.properties.isStoreByValue();
		builder.cacheDefaults(sharing(builder.cacheDefaults(), storeByValue));
		for (String name : builder.getConfiguredCaches()) {
			if (cached.test(name)) {
				builder.getCacheConfigurationFor(name)
					.ifPresent((configuration) -> builder.withCacheConfiguration(name,
							sharing(configuration, storeByValue)));
			}
		}
	}

	private static RedisCacheConfiguration sharing(RedisCacheConfiguration configuration, boolean storeByValue) {
		return configuration
			.serializeValuesWith(SharedValueSerialization.of(configuration.getValueSerializationPair(), storeByValue));
	}

	@Nullable NearCacheWriter writer() {
		return this.writer;
	}

	// Standalone, the master that Sentinel names, or every master of a cluster. A static
	// master/replica setup has no client of its own to connect with.
	private static @Nullable AbstractRedisClient client(RedisConnectionFactory factory) {
		if (factory instanceof LettuceConnectionFactory lettuce) {
			AbstractRedisClient client = lettuce.getNativeClient();
			if (client instanceof RedisClusterClient || client instanceof RedisClient) {
				return client;
			}
		}
		return null;
	}

	// Asked when the tracking connection opens, after every customizer has run: the
	// configurations are then final. A cache without a prefix tracks every key.
	static List<String> prefixes(RedisCacheManagerBuilder builder, List<String> caches) {
		if (caches.contains(ALL)) {
			List<String> prefixes = new ArrayList<>();
			for (String name : builder.getConfiguredCaches()) {
				prefixes.add(prefix(builder, name));
			}
			// Caches created on the fly take the defaults, whose prefix depends on the
			// name: every key is tracked.
			prefixes.add("");
			return prefixes;
		}
		return caches.stream().map((name) -> prefix(builder, name)).toList();
	}

	private static String prefix(RedisCacheManagerBuilder builder, String name) {
		RedisCacheConfiguration configuration = builder.getCacheConfigurationFor(name).orElse(builder.cacheDefaults());
		return configuration.usePrefix() ? configuration.getKeyPrefixFor(name) : "";
	}

	@Override
	public void destroy() {
		closeWriter();
	}

	private void closeWriter() {
		NearCacheWriter current = this.writer;
		if (current != null) {
			current.tracking().close();
			this.writer = null;
		}
	}

}
