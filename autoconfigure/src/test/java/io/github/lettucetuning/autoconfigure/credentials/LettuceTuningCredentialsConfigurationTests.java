package io.github.lettucetuning.autoconfigure.credentials;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.ReauthenticateBehavior;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningCredentialsConfiguration}.
 */
class LettuceTuningCredentialsConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void withoutACredentialsBeanTheClientKeepsBootsCredentials() {
		this.contextRunner.withPropertyValues("spring.data.redis.username=app", "spring.data.redis.password=s3cret")
			.run((context) -> {
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				assertThat(factory.getClientConfiguration().getRedisCredentialsProviderFactory()).isEmpty();
				assertThat(reauthenticate(factory)).isEqualTo(ReauthenticateBehavior.DEFAULT);
				assertThat(context.getBean(CredentialsTracker.class).user()).isEqualTo("app");
				assertThat(context.getBean(CredentialsTracker.class).source()).isNull();
			});
	}

	@Test
	void passwordWithoutUserIsTheDefaultUsers() {
		this.contextRunner.withPropertyValues("spring.data.redis.password=s3cret")
			.run((context) -> assertThat(context.getBean(CredentialsTracker.class).user()).isEqualTo("default"));
	}

	@Test
	void providerBeanAuthenticatesDataNodesAndLiveConnectionsReauthenticate() {
		this.contextRunner.withBean(RedisCredentialsProvider.class, () -> provider("token-user")).run((context) -> {
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			RedisCredentialsProviderFactory credentials = factory.getClientConfiguration()
				.getRedisCredentialsProviderFactory()
				.orElseThrow();
			RedisCredentials issued = credentials.createCredentialsProvider(new RedisStandaloneConfiguration())
				.resolveCredentials()
				.block();
			assertThat(issued.getUsername()).isEqualTo("token-user");
			assertThat(context.getBean(CredentialsTracker.class).user()).isEqualTo("token-user");
			assertThat(reauthenticate(factory)).isEqualTo(ReauthenticateBehavior.ON_NEW_CREDENTIALS);
			// Sentinels keep the Sentinel configuration's credentials.
			RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
			sentinel.setSentinelPassword("sentinel-secret");
			RedisCredentials sentinelCredentials = credentials.createSentinelCredentialsProvider(sentinel)
				.resolveCredentials()
				.block();
			assertThat(new String(sentinelCredentials.getPassword())).isEqualTo("sentinel-secret");
		});
	}

	@Test
	void factoryBeanAuthenticatesDataNodesAndSentinels() {
		RedisCredentialsProviderFactory factory = new RedisCredentialsProviderFactory() {

			@Override
			public RedisCredentialsProvider createCredentialsProvider(RedisConfiguration configuration) {
				return provider("data-user");
			}

			@Override
			public RedisCredentialsProvider createSentinelCredentialsProvider(
					RedisSentinelConfiguration configuration) {
				return provider("sentinel-user");
			}

		};
		this.contextRunner.withBean(RedisCredentialsProviderFactory.class, () -> factory).run((context) -> {
			RedisCredentialsProviderFactory applied = context.getBean(LettuceTuningConnectionFactory.class)
				.getClientConfiguration()
				.getRedisCredentialsProviderFactory()
				.orElseThrow();
			assertThat(applied.createCredentialsProvider(new RedisStandaloneConfiguration())
				.resolveCredentials()
				.block()
				.getUsername()).isEqualTo("data-user");
			assertThat(applied.createSentinelCredentialsProvider(new RedisSentinelConfiguration())
				.resolveCredentials()
				.block()
				.getUsername()).isEqualTo("sentinel-user");
			assertThat(context.getBean(CredentialsTracker.class).source()).isEqualTo(factory.getClass().getName());
		});
	}

	@Test
	void reauthenticateBehaviourTheApplicationSetsWins() {
		this.contextRunner.withBean(RedisCredentialsProvider.class, () -> provider("token-user"))
			.withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> builder.reauthenticateBehavior(ReauthenticateBehavior.DEFAULT))
			.run((context) -> assertThat(reauthenticate(context.getBean(LettuceTuningConnectionFactory.class)))
				.isEqualTo(ReauthenticateBehavior.DEFAULT));
	}

	@Test
	void providerAndFactoryBeansTogetherFailStartup() {
		this.contextRunner.withBean(RedisCredentialsProvider.class, () -> provider("token-user"))
			.withBean(RedisCredentialsProviderFactory.class, () -> new RedisCredentialsProviderFactory() {
			})
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("1 RedisCredentialsProviderFactory and 1 RedisCredentialsProvider beans")
				.hasMessageContaining("Keep one"));
	}

	private static ReauthenticateBehavior reauthenticate(LettuceTuningConnectionFactory factory) {
		return factory.getClientConfiguration()
			.getClientOptions()
			.map(ClientOptions::getReauthenticateBehaviour)
			.orElseThrow();
	}

	private static RedisCredentialsProvider provider(String user) {
		return () -> Mono.just(RedisCredentials.just(user, "secret-of-" + user));
	}

}
