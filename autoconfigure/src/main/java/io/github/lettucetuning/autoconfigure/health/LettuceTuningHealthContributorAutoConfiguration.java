package io.github.lettucetuning.autoconfigure.health;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.lettuce.core.RedisClient;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the bounded {@code lettuce} health indicator.
 *
 * @author lettuce-tuning
 * @since 0.1.0
 */
@AutoConfiguration(after = LettuceTuningAutoConfiguration.class)
@ConditionalOnClass({ RedisClient.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(LettuceTuningConnectionFactory.class)
@ConditionalOnEnabledHealthIndicator("lettuce")
@EnableConfigurationProperties(LettuceTuningProperties.class)
public final class LettuceTuningHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "lettuceHealthIndicator", "lettuceHealthContributor" })
	LettuceHealthIndicator lettuceHealthIndicator(LettuceTuningConnectionFactory connectionFactory,
			LettuceTuningProperties properties) {
		Duration timeout = properties.getHealth().getTimeout();
		if (timeout.isNegative() || timeout.isZero()) {
			throw new InvalidTuningPropertyException("lettuce.tuning.health.timeout", timeout,
					"it must be positive so that the health check answers",
					"Set lettuce.tuning.health.timeout to a positive duration, e.g. 2s.");
		}
		return new LettuceHealthIndicator(connectionFactory, timeout);
	}

}
