package io.github.lettucetuning.autoconfigure.health;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.state.ClientStateConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ClientStateReader;
import io.lettuce.core.RedisClient;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisReactiveHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Puts the bounded health check in the place of Spring Boot's {@code redis} health
 * contributor. Boot's imperative and reactive contributors both step aside for a bean
 * named {@code redisHealthContributor}; theirs waits out the command timeout (60 s unless
 * set) when Redis stops answering, and holds {@code /actuator/health} with it. One
 * blocking indicator serves servlet and reactive applications alike: Boot's reactive
 * health endpoint runs blocking indicators off the event loop.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LettuceTuningAutoConfiguration.class,
		before = { DataRedisHealthContributorAutoConfiguration.class,
				DataRedisReactiveHealthContributorAutoConfiguration.class })
@ConditionalOnClass({ RedisClient.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(LettuceTuningConnectionFactory.class)
@ConditionalOnEnabledHealthIndicator("redis")
@EnableConfigurationProperties(LettuceTuningProperties.class)
@Import(ClientStateConfiguration.class)
public final class LettuceTuningHealthContributorAutoConfiguration {

	/**
	 * The name Boot's {@code redis} contributors step aside for; the health component is
	 * {@code redis}.
	 */
	public static final String BEAN_NAME = "redisHealthContributor";

	@Bean(BEAN_NAME)
	@ConditionalOnMissingBean(name = { "redisHealthIndicator", BEAN_NAME })
	LettuceHealthIndicator redisHealthContributor(LettuceTuningConnectionFactory connectionFactory,
			LettuceTuningProperties properties, ClientStateReader clientState) {
		return new LettuceHealthIndicator(connectionFactory, properties.getHealth().getTimeout(), clientState);
	}

}
