package io.github.lettucetuning.autoconfigure.credentials;

import io.github.lettucetuning.autoconfigure.CustomizerOrder;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.credentials.TrackingCredentialsProviderFactory;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.ReauthenticateBehavior;
import io.lettuce.core.RedisCredentialsProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

/**
 * Puts the application's {@link RedisCredentialsProviderFactory} or
 * {@link RedisCredentialsProvider} bean on every connection the client opens, through
 * Spring Data's client configuration, and has Lettuce re-authenticate live connections
 * when it issues new credentials. Which bean, if any, is
 * {@code lettuce.tuning.credentials.provider}'s to say: by default only the one marked
 * {@code @Primary}, and only when {@code spring.data.redis.username} and {@code password}
 * are unset, since stock Spring Boot wires none and a bean may be meant for another Redis
 * ({@link CredentialsChoice} has the rule).
 *
 * @since 0.1.0
 */
// Works around Spring Boot wiring no credentials provider bean:
// docs/upstream.md#credentials-providers-from-beans
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningCredentialsConfiguration {

	@Bean
	CredentialsChoice lettuceTuningCredentialsChoice(ConfigurableListableBeanFactory beanFactory,
			LettuceTuningProperties properties, DataRedisConnectionDetails connectionDetails) {
		return CredentialsChoice.of(beanFactory, properties.getCredentials().getProvider(), connectionDetails);
	}

	@Bean
	CredentialsTracker lettuceTuningCredentialsTracker(DataRedisConnectionDetails connectionDetails,
			CredentialsChoice choice) {
		Object bean = choice.bean();
		if (bean != null) {
			return new CredentialsTracker(null, bean.getClass().getName(), choice.reason());
		}
		return new CredentialsTracker(configuredUser(connectionDetails), null, choice.reason());
	}

	// Redis names a password sent without a user name the default user's.
	private static @Nullable String configuredUser(DataRedisConnectionDetails connectionDetails) {
		if (connectionDetails.getUsername() != null) {
			return connectionDetails.getUsername();
		}
		return (connectionDetails.getPassword() != null) ? CredentialsTracker.DEFAULT_USER : null;
	}

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	LettuceClientConfigurationBuilderCustomizer lettuceTuningCredentialsCustomizer(CredentialsChoice choice,
			CredentialsTracker tracker) {
		Object source = choice.bean();
		return (builder) -> {
			if (source instanceof RedisCredentialsProviderFactory factory) {
				builder.redisCredentialsProviderFactory(TrackingCredentialsProviderFactory.of(factory, tracker));
			}
			else if (source instanceof RedisCredentialsProvider provider) {
				builder.redisCredentialsProviderFactory(TrackingCredentialsProviderFactory.of(provider, tracker));
			}
		};
	}

	// Lettuce re-authenticates only when told to; an application that chose otherwise
	// has its own customizer, which runs after this one.
	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	LettuceClientOptionsBuilderCustomizer lettuceTuningReauthenticationCustomizer(CredentialsChoice choice) {
		boolean provided = choice.bean() != null;
		return (builder) -> {
			if (provided
					&& builder.build().getReauthenticateBehaviour() == ClientOptions.DEFAULT_REAUTHENTICATE_BEHAVIOUR) {
				builder.reauthenticateBehavior(ReauthenticateBehavior.ON_NEW_CREDENTIALS);
			}
		};
	}

}
