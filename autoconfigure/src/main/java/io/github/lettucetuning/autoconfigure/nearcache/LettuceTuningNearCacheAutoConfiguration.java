package io.github.lettucetuning.autoconfigure.nearcache;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.lettucetuning.autoconfigure.ExplicitProperties;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.nearcache.NearCacheWriter;
import io.github.lettucetuning.nearcache.NearCaches;
import io.lettuce.core.RedisClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.unit.DataSize;

/**
 * Auto-configuration of the near cache of Spring Boot's RedisCacheManager, when
 * {@code lettuce.tuning.near-cache.caches} names caches.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class, before = CacheAutoConfiguration.class)
@ConditionalOnClass({ Caffeine.class, RedisCacheManagerBuilderCustomizer.class, RedisCacheManager.class,
		RedisClient.class })
@ConditionalOnBooleanProperty(name = "lettuce.tuning.enabled", matchIfMissing = true)
@Conditional(OnNearCacheCaches.class)
@EnableConfigurationProperties(LettuceTuningProperties.class)
public final class LettuceTuningNearCacheAutoConfiguration {

	private static final String MAXIMUM_SIZE = "lettuce.tuning.near-cache.maximum-size";

	private static final String MAXIMUM_BYTES = "lettuce.tuning.near-cache.maximum-bytes";

	@Bean
	NearCaches lettuceTuningNearCaches(LettuceTuningProperties properties, Environment environment) {
		LettuceTuningProperties.NearCache nearCache = properties.getNearCache();
		return new NearCaches(nearCache.getCaches(), bound(nearCache, ExplicitProperties.of(environment)));
	}

	@Bean
	NearCacheManagerCustomizer nearCacheManagerCustomizer(ObjectProvider<RedisConnectionFactory> connectionFactory,
			LettuceTuningProperties properties, NearCaches nearCaches) {
		return new NearCacheManagerCustomizer(connectionFactory::getIfUnique, properties.getNearCache(), nearCaches);
	}

	// maximum-size has a default, so only the environment tells whether the application
	// chose it next to maximum-bytes.
	static NearCacheWriter.Bound bound(LettuceTuningProperties.NearCache nearCache, ExplicitProperties explicit) {
		DataSize maximumBytes = nearCache.getMaximumBytes();
		if (maximumBytes == null) {
			return NearCacheWriter.Bound.entries(nearCache.getMaximumSize());
		}
		if (explicit.isSet(MAXIMUM_SIZE)) {
			throw new InvalidTuningPropertyException(MAXIMUM_SIZE, nearCache.getMaximumSize(),
					MAXIMUM_BYTES + " is set too (" + maximumBytes
							+ "); the near cache is bounded by entries or by bytes, not both",
					"Remove " + MAXIMUM_SIZE + " to bound the near cache by the bytes of its keys and values, or "
							+ MAXIMUM_BYTES + " to bound it by entries.");
		}
		return NearCacheWriter.Bound.bytes(maximumBytes.toBytes());
	}

	@Bean
	NearCacheTrackingLifecycle nearCacheTrackingLifecycle(NearCacheManagerCustomizer nearCacheManagerCustomizer) {
		return new NearCacheTrackingLifecycle(nearCacheManagerCustomizer);
	}

}
