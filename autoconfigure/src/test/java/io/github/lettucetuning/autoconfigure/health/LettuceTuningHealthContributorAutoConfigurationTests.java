package io.github.lettucetuning.autoconfigure.health;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisReactiveHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.health.DataRedisHealthIndicator;
import org.springframework.boot.data.redis.health.DataRedisReactiveHealthIndicator;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningHealthContributorAutoConfiguration}.
 */
class LettuceTuningHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class,
				LettuceTuningHealthContributorAutoConfiguration.class));

	@Test
	void registersTheBoundedIndicatorWithATwoSecondTimeout() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LettuceHealthIndicator.class).hasBean("redisHealthContributor");
			assertThat(context.getBean(LettuceHealthIndicator.class).getTimeout()).isEqualTo(Duration.ofSeconds(2));
		});
	}

	@Test
	void takesThePlaceOfBootsRedisContributorsImperativeAndReactive() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisReactiveAutoConfiguration.class,
				HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
				DataRedisHealthContributorAutoConfiguration.class,
				DataRedisReactiveHealthContributorAutoConfiguration.class))
			.run((context) -> {
				HealthContributorRegistry registry = context.getBean(HealthContributorRegistry.class);
				assertThat(registry.getContributor("redis")).isInstanceOf(LettuceHealthIndicator.class);
				assertThat(registry.getContributor("lettuce")).isNull();
				assertThat(context).doesNotHaveBean(DataRedisHealthIndicator.class)
					.doesNotHaveBean(DataRedisReactiveHealthIndicator.class);
			});
	}

	@Test
	void bootsRedisContributorStaysWhenTuningIsDisabled() {
		this.contextRunner.withPropertyValues("lettuce.tuning.enabled=false")
			.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
					HealthContributorRegistryAutoConfiguration.class,
					DataRedisHealthContributorAutoConfiguration.class))
			.run((context) -> assertThat(context.getBean(HealthContributorRegistry.class).getContributor("redis"))
				.isInstanceOf(DataRedisHealthIndicator.class));
	}

	@Test
	void timeoutComesFromTheProperty() {
		this.contextRunner.withPropertyValues("lettuce.tuning.health.timeout=750ms")
			.run((context) -> assertThat(context.getBean(LettuceHealthIndicator.class).getTimeout())
				.isEqualTo(Duration.ofMillis(750)));
	}

	@Test
	void nonPositiveTimeoutFailsWithTheProperty() {
		this.contextRunner.withPropertyValues("lettuce.tuning.health.timeout=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
						(ex) -> assertThat(ex.getName()).isEqualTo("lettuce.tuning.health.timeout")));
	}

	@Test
	void runWhenDisabledShouldNotCreateIndicator() {
		this.contextRunner.withPropertyValues("management.health.redis.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceHealthIndicator.class));
	}

	@Test
	void backsOffFromABeanNamedRedisHealthIndicator() {
		this.contextRunner.withUserConfiguration(UserIndicatorConfiguration.class).run((context) -> {
			assertThat(context).doesNotHaveBean(LettuceHealthIndicator.class);
			assertThat(context.getBean("redisHealthIndicator")).isInstanceOf(HealthIndicator.class);
		});
	}

	@Test
	void backsOffWhenTheConnectionFactoryIsNotOurs() {
		this.contextRunner.withUserConfiguration(UserConnectionFactoryConfiguration.class)
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceHealthIndicator.class));
	}

	@Test
	void backsOffWhenTuningIsDisabled() {
		this.contextRunner.withPropertyValues("lettuce.tuning.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceHealthIndicator.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserIndicatorConfiguration {

		@Bean
		HealthIndicator redisHealthIndicator() {
			return () -> Health.up().build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserConnectionFactoryConfiguration {

		@Bean
		RedisConnectionFactory userConnectionFactory() {
			return new LettuceConnectionFactory();
		}

	}

}
