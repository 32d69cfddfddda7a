package io.github.lettucetuning.autoconfigure.nearcache;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
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
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisConnectionFactory;

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

	@Bean
	NearCacheManagerCustomizer nearCacheManagerCustomizer(ObjectProvider<RedisConnectionFactory> connectionFactory,
			LettuceTuningProperties properties) {
		return new NearCacheManagerCustomizer(connectionFactory::getIfUnique, properties.getNearCache());
	}

	@Bean
	NearCacheTrackingLifecycle nearCacheTrackingLifecycle(NearCacheManagerCustomizer nearCacheManagerCustomizer) {
		return new NearCacheTrackingLifecycle(nearCacheManagerCustomizer);
	}

}
