package io.github.lettucetuning.autoconfigure.credentials;

import java.util.List;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.credentials.TrackingCredentialsProviderFactory;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.ReauthenticateBehavior;
import io.lettuce.core.RedisCredentialsProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
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
 * when it issues new credentials. Both kinds of bean at once, or two of one kind, fail
 * startup: which should win is the application's to say.
 *
 * @since 0.1.0
 */
// Works around Spring Boot wiring no credentials provider bean:
// docs/upstream.md#credentials-providers-from-beans
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningCredentialsConfiguration {

	@Bean
	CredentialsTracker lettuceTuningCredentialsTracker(DataRedisConnectionDetails connectionDetails,
			ObjectProvider<RedisCredentialsProviderFactory> factories,
			ObjectProvider<RedisCredentialsProvider> providers) {
		Object source = CredentialsSource.of(factories, providers);
		if (source != null) {
			return new CredentialsTracker(null, source.getClass().getName());
		}
		return new CredentialsTracker(configuredUser(connectionDetails), null);
	}

	// Redis names a password sent without a user name the default user's.
	private static @Nullable String configuredUser(DataRedisConnectionDetails connectionDetails) {
		if (connectionDetails.getUsername() != null) {
			return connectionDetails.getUsername();
		}
		return (connectionDetails.getPassword() != null) ? CredentialsTracker.DEFAULT_USER : null;
	}

	@Bean
	@Order(LettuceTuningAutoConfiguration.CUSTOMIZER_ORDER)
	LettuceClientConfigurationBuilderCustomizer lettuceTuningCredentialsCustomizer(
			ObjectProvider<RedisCredentialsProviderFactory> factories,
			ObjectProvider<RedisCredentialsProvider> providers, CredentialsTracker tracker) {
		Object source = CredentialsSource.of(factories, providers);
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
	@Order(LettuceTuningAutoConfiguration.CUSTOMIZER_ORDER)
	LettuceClientOptionsBuilderCustomizer lettuceTuningReauthenticationCustomizer(
			ObjectProvider<RedisCredentialsProviderFactory> factories,
			ObjectProvider<RedisCredentialsProvider> providers) {
		boolean provided = CredentialsSource.of(factories, providers) != null;
		return (builder) -> {
			if (provided
					&& builder.build().getReauthenticateBehaviour() == ClientOptions.DEFAULT_REAUTHENTICATE_BEHAVIOUR) {
				builder.reauthenticateBehavior(ReauthenticateBehavior.ON_NEW_CREDENTIALS);
			}
		};
	}

	/**
	 * Finds the one bean that supplies credentials.
	 */
	static final class CredentialsSource {

		private CredentialsSource() {
		}

		static @Nullable Object of(ObjectProvider<RedisCredentialsProviderFactory> factories,
				ObjectProvider<RedisCredentialsProvider> providers) {
			List<RedisCredentialsProviderFactory> factoryBeans = factories.orderedStream().toList();
			List<RedisCredentialsProvider> providerBeans = providers.orderedStream().toList();
			if (factoryBeans.size() + providerBeans.size() > 1) {
				throw new IllegalStateException("lettuce-tuning found " + factoryBeans.size()
						+ " RedisCredentialsProviderFactory and " + providerBeans.size()
						+ " RedisCredentialsProvider beans, and cannot tell which one supplies the Redis credentials. "
						+ "Keep one: a RedisCredentialsProvider bean for the data nodes, or a "
						+ "RedisCredentialsProviderFactory bean when Sentinels need credentials of their own.");
			}
			if (!factoryBeans.isEmpty()) {
				return factoryBeans.get(0);
			}
			return providerBeans.isEmpty() ? null : providerBeans.get(0);
		}

	}

}
