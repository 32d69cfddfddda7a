package io.github.lettucetuning.autoconfigure;

import io.github.lettucetuning.autoconfigure.cluster.LettuceTuningClusterConfiguration;
import io.github.lettucetuning.autoconfigure.cluster.LettuceTuningSentinelConfiguration;
import io.github.lettucetuning.autoconfigure.connection.LettuceTuningConnectionConfiguration;
import io.github.lettucetuning.autoconfigure.credentials.LettuceTuningCredentialsConfiguration;
import io.github.lettucetuning.autoconfigure.observation.LettuceTuningObservationConfiguration;
import io.github.lettucetuning.autoconfigure.resilience.LettuceTuningResilienceConfiguration;
import io.github.lettucetuning.autoconfigure.resources.LettuceTuningResourcesConfiguration;
import io.github.lettucetuning.autoconfigure.socket.LettuceTuningSocketConfiguration;
import io.github.lettucetuning.autoconfigure.timeout.LettuceTuningTimerConfiguration;
import io.lettuce.core.RedisClient;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of a tuned Lettuce client: tuned client resources and a connection
 * factory whose plain commands share native connections while dedicated work uses a
 * bounded pool.
 * <p>
 * The configurations it imports sit in one package per feature, beside the types they
 * wire. They are public only because Java requires it of a class imported from another
 * package, as Spring Boot's own cross-package imports are (its
 * {@code DataSourcePoolMetadataProvidersConfiguration}); applications should not import
 * them, and their bean methods stay package-private. The order of the customizers they
 * contribute is {@link CustomizerOrder#LETTUCE_TUNING}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DataRedisAutoConfiguration.class)
@ConditionalOnClass({ RedisClient.class, LettuceConnectionFactory.class, DataRedisProperties.class })
@ConditionalOnBooleanProperty(name = "lettuce.tuning.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "spring.data.redis.client-type", havingValue = "lettuce", matchIfMissing = true)
@EnableConfigurationProperties({ LettuceTuningProperties.class, DataRedisProperties.class })
@Import({ LettuceTuningTimerConfiguration.class, LettuceTuningResourcesConfiguration.class,
		LettuceTuningConnectionConfiguration.class, LettuceTuningCredentialsConfiguration.class,
		LettuceTuningClusterConfiguration.class, LettuceTuningSentinelConfiguration.class,
		LettuceTuningSocketConfiguration.class, LettuceTuningResilienceConfiguration.class,
		LettuceTuningObservationConfiguration.class })
public final class LettuceTuningAutoConfiguration {

}
