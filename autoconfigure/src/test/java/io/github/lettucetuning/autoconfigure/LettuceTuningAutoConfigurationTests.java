package io.github.lettucetuning.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.DedicatedConnectionPool;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.connection.SelectionPolicy;
import io.github.lettucetuning.eventloop.EventLoopThread;
import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.resilience.OutageGuard;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningAutoConfiguration}.
 */
class LettuceTuningAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void defaultsToOneSharedConnectionWithBoundedDedicatedPool() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisConnectionFactory.class).hasSingleBean(ClientResources.class);
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			assertThat(factory.getMode()).isEqualTo(ConnectionMode.SHARED);
			assertThat(factory.getShareNativeConnection()).isTrue();
			assertThat(factory.getSharedConnectionCount()).isOne();
			assertThat(factory.getEagerInitialization()).isFalse();
			assertThat(factory.getClientConfiguration()).isNotInstanceOf(LettucePoolingClientConfiguration.class);
			assertThat(factory.getDedicatedConnectionProvider()).isInstanceOf(DedicatedConnectionPool.class);
			assertThat(factory.getClientConfiguration().getClientResources())
				.contains(context.getBean(ClientResources.class));
			assertThat(context).hasSingleBean(StringRedisTemplate.class);
		});
	}

	@Test
	void eventLoopThreadsAreMarkedNonBlockingAndWatchedByDefault() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(EventLoopWatchdog.class);
			assertThat(context.getBean(OutageGuard.class).watchdog())
				.isSameAs(context.getBean(EventLoopWatchdog.class));
			assertThat(ioThread(context.getBean(ClientResources.class))).isInstanceOf(EventLoopThread.class);
		});
	}

	@Test
	void theBlockingCallGuardAndTheWatchdogCanBeSwitchedOff() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.resilience.blocking-call-guard.enabled=false",
					"lettuce.tuning.resilience.blocked-loop-detection.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(EventLoopWatchdog.class);
				assertThat(context.getBean(OutageGuard.class).watchdog()).isNull();
				assertThat(ioThread(context.getBean(ClientResources.class))).isNotInstanceOf(EventLoopThread.class);
			});
	}

	private static Thread ioThread(ClientResources resources) throws Exception {
		EventLoopGroupProvider provider = resources.eventLoopGroupProvider();
		EventLoopGroup group = provider.allocate(Transports.eventLoopGroupClass());
		try {
			return group.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
		}
		finally {
			provider.release(group, 0, 1, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
		}
	}

	@Test
	void disabledGivesSpringBootsStockFactoryAndSettings() {
		this.contextRunner.withPropertyValues("lettuce.tuning.enabled=false").run((context) -> {
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			assertThat(factory.getClass()).isEqualTo(LettuceConnectionFactory.class);
			assertThat(factory.getClientConfiguration()).isInstanceOf(LettucePoolingClientConfiguration.class);
			LettucePoolingClientConfiguration pooling = (LettucePoolingClientConfiguration) factory
				.getClientConfiguration();
			assertThat(pooling.getPoolConfig().getMaxWaitDuration()).isEqualTo(Duration.ofMillis(-1));
			assertThat(factory.getClientConfiguration().getClientName()).isEmpty();
			assertThat(context).doesNotHaveBean(LettuceTuningProperties.class)
				.doesNotHaveBean(LettuceTuningConnectionFactory.class);
		});
	}

	@Test
	void backsOffForJedisClientType() {
		this.contextRunner.withPropertyValues("spring.data.redis.client-type=jedis")
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceTuningConnectionFactory.class)
				.doesNotHaveBean(LettuceTuningProperties.class));
	}

	@Test
	void backsOffWhenUserDefinesConnectionFactory() {
		this.contextRunner.withUserConfiguration(UserConnectionFactoryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisConnectionFactory.class)
				.doesNotHaveBean(LettuceTuningConnectionFactory.class);
			assertThat(context.getBean(RedisConnectionFactory.class))
				.isSameAs(context.getBean("userConnectionFactory"));
		});
	}

	@Test
	void backsOffWhenUserDefinesClientResources() {
		this.contextRunner.withUserConfiguration(UserClientResourcesConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ClientResources.class);
			assertThat(clientConfiguration(context).getClientResources())
				.contains(context.getBean("userClientResources", ClientResources.class));
		});
	}

	@Test
	void mapsBootPropertiesOntoTheClientConfiguration() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.timeout=3s", "spring.data.redis.connect-timeout=700ms",
					"spring.data.redis.lettuce.shutdown-timeout=250ms",
					"spring.data.redis.lettuce.read-from=replica-preferred")
			.run((context) -> {
				LettuceClientConfiguration configuration = clientConfiguration(context);
				assertThat(configuration.getCommandTimeout()).isEqualTo(Duration.ofSeconds(3));
				assertThat(configuration.getShutdownTimeout()).isEqualTo(Duration.ofMillis(250));
				assertThat(configuration.getReadFrom()).contains(ReadFrom.REPLICA_PREFERRED);
				ClientOptions options = configuration.getClientOptions().orElseThrow();
				assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(Duration.ofMillis(700));
				assertThat(options.getTimeoutOptions().isTimeoutCommands()).isTrue();
			});
	}

	@Test
	void clientNameDefaultsToTheApplicationName() {
		this.contextRunner.withPropertyValues("spring.application.name=catalog")
			.run((context) -> assertThat(clientConfiguration(context).getClientName()).contains("catalog"));
	}

	@Test
	void bootClientNameWinsOverTheApplicationName() {
		this.contextRunner.withPropertyValues("spring.application.name=catalog", "spring.data.redis.client-name=orders")
			.run((context) -> assertThat(clientConfiguration(context).getClientName()).contains("orders"));
	}

	@Test
	void redissUrlEnablesSsl() {
		this.contextRunner.withPropertyValues("spring.data.redis.url=rediss://user:secret@example.com:6380")
			.run((context) -> {
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				assertThat(factory.getClientConfiguration().isUseSsl()).isTrue();
				assertThat(factory.getHostName()).isEqualTo("example.com");
				assertThat(factory.getPort()).isEqualTo(6380);
				assertThat(factory.getPassword()).isEqualTo("secret");
			});
	}

	@Test
	void clusterPropertiesGiveClusterOptionsWithRefresh() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7000,127.0.0.1:7001",
					"spring.data.redis.lettuce.cluster.refresh.period=15s")
			.run((context) -> {
				ClientOptions options = clientConfiguration(context).getClientOptions().orElseThrow();
				assertThat(options).isInstanceOf(ClusterClientOptions.class);
				assertThat(((ClusterClientOptions) options).getTopologyRefreshOptions().getRefreshPeriod())
					.isEqualTo(Duration.ofSeconds(15));
				assertThat(context.getBean(LettuceTuningConnectionFactory.class).isClusterAware()).isTrue();
			});
	}

	@Test
	void clusterConfigurationBeanAlsoGetsClusterOptions() {
		this.contextRunner.withUserConfiguration(ClusterConfigurationBeanConfiguration.class)
			.withPropertyValues("spring.data.redis.lettuce.cluster.refresh.period=20s")
			.run((context) -> {
				ClientOptions options = clientConfiguration(context).getClientOptions().orElseThrow();
				assertThat(options).isInstanceOf(ClusterClientOptions.class);
				assertThat(((ClusterClientOptions) options).getTopologyRefreshOptions().getRefreshPeriod())
					.isEqualTo(Duration.ofSeconds(20));
			});
	}

	@Test
	void sentinelPropertiesGiveASentinelFactory() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=127.0.0.1:26379,127.0.0.1:26380")
			.run((context) -> {
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				assertThat(factory.isRedisSentinelAware()).isTrue();
				assertThat(factory.getSentinelConfiguration().getSentinels()).hasSize(2);
			});
	}

	@Test
	void userCustomizersRunAfterPropertiesAndWin() {
		this.contextRunner.withUserConfiguration(CustomizersConfiguration.class)
			.withPropertyValues("spring.data.redis.timeout=3s", "spring.data.redis.connect-timeout=700ms")
			.run((context) -> {
				LettuceClientConfiguration configuration = clientConfiguration(context);
				assertThat(configuration.getCommandTimeout()).isEqualTo(Duration.ofSeconds(30));
				assertThat(configuration.getClientOptions().orElseThrow().getRequestQueueSize()).isEqualTo(300);
				assertThat(context.getBean(ClientResources.class).ioThreadPoolSize()).isEqualTo(3);
			});
	}

	@Test
	void multiModeOpensTheConfiguredSetWithEnoughIoThreads() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.connection.mode=multi", "lettuce.tuning.connection.multi.size=5",
					"lettuce.tuning.connection.multi.selection=thread-affinity",
					"lettuce.tuning.connection.io-threads=2")
			.run((context) -> {
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				assertThat(factory.getMode()).isEqualTo(ConnectionMode.MULTI);
				assertThat(factory.getSharedConnectionCount()).isEqualTo(5);
				assertThat(factory.getSelectionPolicy()).isEqualTo(SelectionPolicy.THREAD_AFFINITY);
				assertThat(context.getBean(ClientResources.class).ioThreadPoolSize()).isEqualTo(5);
			});
	}

	@Test
	void multiModeDefaultsToOneConnectionPerProcessor() {
		this.contextRunner.withPropertyValues("lettuce.tuning.connection.mode=multi")
			.run((context) -> assertThat(
					context.getBean(LettuceTuningConnectionFactory.class).getSharedConnectionCount())
				.isEqualTo(Runtime.getRuntime().availableProcessors()));
	}

	@Test
	void pooledModeConfinesEveryOperationToAPooledConnection() {
		this.contextRunner.withPropertyValues("lettuce.tuning.connection.mode=pooled").run((context) -> {
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			assertThat(factory.getShareNativeConnection()).isFalse();
			assertThat(factory.getDedicatedConnectionProvider()).isInstanceOf(DedicatedConnectionPool.class);
		});
	}

	@Test
	void resourceThreadPropertiesApply() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.connection.io-threads=3",
					"lettuce.tuning.connection.computation-threads=4")
			.run((context) -> {
				ClientResources resources = context.getBean(ClientResources.class);
				assertThat(resources.ioThreadPoolSize()).isEqualTo(3);
				assertThat(resources.computationThreadPoolSize()).isEqualTo(4);
			});
	}

	@Test
	void ioThreadsDefaultToLettucesDefault() {
		this.contextRunner.run((context) -> assertThat(context.getBean(ClientResources.class).ioThreadPoolSize())
			.isEqualTo(DefaultClientResources.DEFAULT_IO_THREADS));
	}

	@Test
	void withoutCommonsPool2DedicatedConnectionsAreOpenedPerUse() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.apache.commons.pool2")).run((context) -> {
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			assertThat(factory.getShareNativeConnection()).isTrue();
			assertThat(factory.getDedicatedConnectionProvider()).isNotInstanceOf(DedicatedConnectionPool.class);
		});
	}

	@Test
	void bootPoolDisabledMeansNoDedicatedPool() {
		this.contextRunner.withPropertyValues("spring.data.redis.lettuce.pool.enabled=false")
			.run((context) -> assertThat(
					context.getBean(LettuceTuningConnectionFactory.class).getDedicatedConnectionProvider())
				.isNotInstanceOf(DedicatedConnectionPool.class));
	}

	@Test
	void eagerInitializationIsMappedBeforeStart() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.connection.eager-initialization=true", "spring.data.redis.port=1",
					"spring.data.redis.connect-timeout=200ms")
			// Port 1 refuses the connection: eager initialization fails startup, as it
			// should.
			.run((context) -> assertThat(context).hasFailed());
	}

	private static LettuceClientConfiguration clientConfiguration(AssertableApplicationContext context) {
		return context.getBean(LettuceConnectionFactory.class).getClientConfiguration();
	}

	@Configuration(proxyBeanMethods = false)
	static class UserConnectionFactoryConfiguration {

		@Bean
		LettuceConnectionFactory userConnectionFactory() {
			return new LettuceConnectionFactory();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserClientResourcesConfiguration {

		@Bean(destroyMethod = "shutdown")
		ClientResources userClientResources() {
			return DefaultClientResources.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ClusterConfigurationBeanConfiguration {

		@Bean
		RedisClusterConfiguration redisClusterConfiguration() {
			return new RedisClusterConfiguration(java.util.List.of("127.0.0.1:7000"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomizersConfiguration {

		@Bean
		LettuceClientConfigurationBuilderCustomizer timeoutCustomizer() {
			return (builder) -> builder.commandTimeout(Duration.ofSeconds(30));
		}

		@Bean
		LettuceClientOptionsBuilderCustomizer queueCustomizer() {
			return (builder) -> builder.requestQueueSize(300);
		}

		@Bean
		ClientResourcesBuilderCustomizer threadsCustomizer() {
			return (builder) -> builder.ioThreadPoolSize(3);
		}

	}

}
