package io.github.lettucetuning.autoconfigure.credentials;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.ReauthenticateBehavior;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.BeanDefinitionCustomizer;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningCredentialsConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LettuceTuningCredentialsConfigurationTests {

	private static final BeanDefinitionCustomizer PRIMARY = (definition) -> definition.setPrimary(true);

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
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("no RedisCredentialsProvider or RedisCredentialsProviderFactory bean");
			});
	}

	@Test
	void passwordWithoutUserIsTheDefaultUsers() {
		this.contextRunner.withPropertyValues("spring.data.redis.password=s3cret")
			.run((context) -> assertThat(context.getBean(CredentialsTracker.class).user()).isEqualTo("default"));
	}

	@Test
	void providerBeanAuthenticatesDataNodesAndLiveConnectionsReauthenticate() {
		this.contextRunner
			.withBean("tokenCredentials", RedisCredentialsProvider.class, () -> provider("token-user"), PRIMARY)
			.run((context) -> {
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
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("bean 'tokenCredentials' is the "
							+ "@Primary credentials bean, and spring.data.redis.username and password are unset");
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
		this.contextRunner.withBean("factory", RedisCredentialsProviderFactory.class, () -> factory, PRIMARY)
			.run((context) -> {
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
		this.contextRunner
			.withBean("tokenCredentials", RedisCredentialsProvider.class, () -> provider("token-user"), PRIMARY)
			.withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> builder.reauthenticateBehavior(ReauthenticateBehavior.DEFAULT))
			.run((context) -> assertThat(reauthenticate(context.getBean(LettuceTuningConnectionFactory.class)))
				.isEqualTo(ReauthenticateBehavior.DEFAULT));
	}

	@Test
	void singleBeanWithoutPrimaryIsNotWiredSinceItMayBeForAnotherRedis(CapturedOutput output) {
		this.contextRunner.withBean("secondRedisCredentials", RedisCredentialsProvider.class, () -> provider("second"))
			.run((context) -> {
				assertNotWired(context);
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("none taken: bean 'secondRedisCredentials' is not marked @Primary, "
							+ "so it may be meant for another Redis");
				assertThat(output)
					.contains("lettuce-tuning found credentials beans [secondRedisCredentials] and "
							+ "wired none into Spring Boot's Redis connection")
					.contains("set lettuce.tuning.credentials.provider=<bean name>");
			});
	}

	@Test
	void primaryBeanIsNotWiredWhenBootsPropertiesSupplyCredentials() {
		this.contextRunner.withPropertyValues("spring.data.redis.password=s3cret")
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class, () -> provider("second"), PRIMARY)
			.run((context) -> {
				assertNotWired(context);
				assertThat(context.getBean(CredentialsTracker.class).user()).isEqualTo("default");
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.startsWith("none taken: spring.data.redis.username or password (or url, a service connection "
							+ "or a Redis*Configuration bean) supplies the credentials");
			});
	}

	@Test
	void primaryBeanIsNotWiredWhenBootsUrlCarriesCredentials() {
		this.contextRunner.withPropertyValues("spring.data.redis.url=redis://app:s3cret@localhost:6379")
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class, () -> provider("second"), PRIMARY)
			.run((context) -> {
				assertNotWired(context);
				assertThat(context.getBean(CredentialsTracker.class).user()).isEqualTo("app");
			});
	}

	@Test
	void primaryBeanIsNotWiredWhenBootsConfigurationBeanCarriesAPassword() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration();
		configuration.setPassword("s3cret");
		this.contextRunner.withBean(RedisStandaloneConfiguration.class, () -> configuration)
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class, () -> provider("second"), PRIMARY)
			.run(LettuceTuningCredentialsConfigurationTests::assertNotWired);
	}

	@Test
	void primaryBeanIsWiredWhenBootsConfigurationBeanCarriesNoCredentials() {
		this.contextRunner.withBean(RedisStandaloneConfiguration.class, RedisStandaloneConfiguration::new)
			.withBean("boots", RedisCredentialsProvider.class, () -> provider("boots"), PRIMARY)
			.run((context) -> assertThat(issuedUser(context)).isEqualTo("boots"));
	}

	@Test
	void severalBeansWithoutPrimaryStartAndWireNone(CapturedOutput output) {
		this.contextRunner.withBean("first", RedisCredentialsProvider.class, () -> provider("first"))
			.withBean("second", RedisCredentialsProviderFactory.class, () -> new RedisCredentialsProviderFactory() {
			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertNotWired(context);
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("none taken: of beans [second, first], none is marked @Primary");
				assertThat(output).containsOnlyOnce("lettuce-tuning found credentials beans [second, first]");
			});
	}

	@Test
	void severalPrimaryBeansWireNone() {
		this.contextRunner.withBean("first", RedisCredentialsProvider.class, () -> provider("first"), PRIMARY)
			.withBean("second", RedisCredentialsProvider.class, () -> provider("second"), PRIMARY)
			.run((context) -> {
				assertNotWired(context);
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("none taken: of beans [first, second], [first, second] are marked @Primary");
			});
	}

	@Test
	void primaryAmongSeveralIsWired() {
		this.contextRunner.withBean("other", RedisCredentialsProvider.class, () -> provider("other"))
			.withBean("boots", RedisCredentialsProvider.class, () -> provider("boots"), PRIMARY)
			.run((context) -> {
				assertThat(issuedUser(context)).isEqualTo("boots");
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.startsWith("bean 'boots' is the @Primary");
			});
	}

	@Test
	void beanThatIsNoDefaultCandidateIsNotACandidate() {
		this.contextRunner
			.withBean("other", RedisCredentialsProvider.class, () -> provider("other"),
					(definition) -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false))
			.run((context) -> {
				assertNotWired(context);
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("no RedisCredentialsProvider or RedisCredentialsProviderFactory bean that is a "
							+ "default candidate (other: defaultCandidate or autowireCandidate = false)");
			});
	}

	@Test
	void propertyNamingABeanWiresItEvenOverBootsPassword() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.credentials.provider=boots", "spring.data.redis.password=s3cret")
			.withBean("other", RedisCredentialsProvider.class, () -> provider("other"), PRIMARY)
			.withBean("boots", RedisCredentialsProvider.class, () -> provider("boots"))
			.run((context) -> {
				assertThat(issuedUser(context)).isEqualTo("boots");
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("bean 'boots' named by lettuce.tuning.credentials.provider");
				assertThat(reauthenticate(context.getBean(LettuceTuningConnectionFactory.class)))
					.isEqualTo(ReauthenticateBehavior.ON_NEW_CREDENTIALS);
			});
	}

	@Test
	void noneWiresNoBean(CapturedOutput output) {
		this.contextRunner.withPropertyValues("lettuce.tuning.credentials.provider=none")
			.withBean("boots", RedisCredentialsProvider.class, () -> provider("boots"), PRIMARY)
			.run((context) -> {
				assertNotWired(context);
				assertThat(context.getBean(CredentialsTracker.class).reason())
					.isEqualTo("lettuce.tuning.credentials.provider=none");
				assertThat(output).doesNotContain("lettuce-tuning found credentials beans");
			});
	}

	@Test
	void unknownBeanNameFailsStartupNamingThePropertyTheValueAndTheFix() {
		this.contextRunner.withPropertyValues("lettuce.tuning.credentials.provider=missing")
			.withBean("boots", RedisCredentialsProvider.class, () -> provider("boots"))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidTuningPropertyException.class, (ex) -> {
					assertThat(ex.getProperty()).isEqualTo("lettuce.tuning.credentials.provider");
					assertThat(ex.getValue()).isEqualTo("missing");
					assertThat(ex.getReason()).isEqualTo("no bean has that name");
					assertThat(ex.getAction()).contains("this application declares [boots]")
						.contains("'auto'")
						.contains("'none'");
				}));
	}

	@Test
	void beanNameOfAnotherTypeFailsStartup() {
		this.contextRunner.withPropertyValues("lettuce.tuning.credentials.provider=notCredentials")
			.withBean("notCredentials", String.class, () -> "not credentials")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidTuningPropertyException.class)
				.hasMessageContaining("'notCredentials'")
				.hasMessageContaining("java.lang.String")
				.hasMessageContaining("neither a RedisCredentialsProvider nor a RedisCredentialsProviderFactory"));
	}

	@Test
	void blankProviderFailsStartup() {
		this.contextRunner.withPropertyValues("lettuce.tuning.credentials.provider= ")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lettuce.tuning.credentials.provider"));
	}

	private static void assertNotWired(AssertableApplicationContext context) {
		LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
		assertThat(factory.getClientConfiguration().getRedisCredentialsProviderFactory()).isEmpty();
		assertThat(reauthenticate(factory)).isEqualTo(ReauthenticateBehavior.DEFAULT);
		assertThat(context.getBean(CredentialsTracker.class).source()).isNull();
	}

	private static String issuedUser(AssertableApplicationContext context) {
		return context.getBean(LettuceTuningConnectionFactory.class)
			.getClientConfiguration()
			.getRedisCredentialsProviderFactory()
			.orElseThrow()
			.createCredentialsProvider(new RedisStandaloneConfiguration())
			.resolveCredentials()
			.block()
			.getUsername();
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
