package io.github.lettucetuning.autoconfigure.cluster;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import io.github.lettucetuning.autoconfigure.CustomizerOrder;
import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.cluster.ClusterNodeFilter;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningClusterConfiguration}: the cluster client options however
 * the cluster is defined, and their precedence over Spring Boot's.
 */
class LettuceTuningClusterConfigurationTests {

	private static final String NODES = "spring.data.redis.cluster.nodes=127.0.0.1:7000,127.0.0.1:7001";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void clusterPropertiesGetTheTunedDefaults() {
		this.contextRunner.withPropertyValues(NODES).run((context) -> assertTunedDefaults(clusterOptions(context)));
	}

	@Test
	void connectionDetailsBeanGetsTheTunedDefaults() {
		this.contextRunner.withUserConfiguration(ClusterConnectionDetailsConfiguration.class)
			.run((context) -> assertTunedDefaults(clusterOptions(context)));
	}

	@Test
	void clusterConfigurationBeanGetsTheTunedDefaults() {
		this.contextRunner.withUserConfiguration(ClusterConfigurationBeanConfiguration.class)
			.run((context) -> assertTunedDefaults(clusterOptions(context)));
	}

	private static void assertTunedDefaults(ClusterClientOptions options) {
		ClusterTopologyRefreshOptions refresh = options.getTopologyRefreshOptions();
		assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
		assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(30));
		assertThat(refresh.getAdaptiveRefreshTriggers()).isEqualTo(EnumSet.allOf(RefreshTrigger.class));
		assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(5));
		assertThat(refresh.getRefreshTriggersReconnectAttempts()).isEqualTo(5);
		assertThat(refresh.useDynamicRefreshSources()).isTrue();
		assertThat(refresh.isCloseStaleConnections()).isTrue();
		assertThat(options.isValidateClusterNodeMembership()).isFalse();
		assertThat(options.getMaxRedirects()).isEqualTo(5);
		assertThat(options.getNodeFilter()).isInstanceOfSatisfying(ClusterNodeFilter.class, (filter) -> {
			assertThat(filter.isExcludeFailed()).isTrue();
			assertThat(filter.isExcludePossiblyFailed()).isTrue();
			assertThat(filter.isExcludeWithoutAddress()).isTrue();
		});
		// Spring Boot's options are kept
		assertThat(options.getTimeoutOptions().isTimeoutCommands()).isTrue();
	}

	@Test
	void bootRefreshPeriodWinsOverTheDefaultPeriod() {
		this.contextRunner.withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.period=15s")
			.run((context) -> assertThat(clusterOptions(context).getTopologyRefreshOptions().getRefreshPeriod())
				.isEqualTo(Duration.ofSeconds(15)));
	}

	@Test
	void bootRefreshPeriodIsKeptWhenItEqualsTheDefault() {
		this.contextRunner.withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.period=30s")
			.run((context) -> assertThat(clusterOptions(context).getTopologyRefreshOptions().getRefreshPeriod())
				.isEqualTo(Duration.ofSeconds(30)));
	}

	@Test
	void periodicRefreshCanBeSwitchedOffWithACustomizer() {
		this.contextRunner.withPropertyValues(NODES)
			.withBean(LettuceClientOptionsBuilderCustomizer.class, () -> (builder) -> {
				ClusterClientOptions.Builder cluster = (ClusterClientOptions.Builder) builder;
				cluster.topologyRefreshOptions(
						ClusterTopologyRefreshOptions.builder().enablePeriodicRefresh(false).build());
			})
			.run((context) -> assertThat(clusterOptions(context).getTopologyRefreshOptions().isPeriodicRefreshEnabled())
				.isFalse());
	}

	@Test
	void bootDynamicRefreshSourcesAreKept() {
		this.contextRunner
			.withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.dynamic-refresh-sources=false")
			.run((context) -> {
				ClusterTopologyRefreshOptions refresh = clusterOptions(context).getTopologyRefreshOptions();
				assertThat(refresh.useDynamicRefreshSources()).isFalse();
				assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(30));
			});
		this.contextRunner
			.withPropertyValues(NODES, "spring.data.redis.lettuce.cluster.refresh.dynamic-refresh-sources=false",
					"spring.data.redis.lettuce.cluster.refresh.period=15s")
			.run((context) -> assertThat(clusterOptions(context).getTopologyRefreshOptions().useDynamicRefreshSources())
				.isFalse());
	}

	@Test
	void refreshOptionsSetBeforeOursSurviveWithPeriodicRefreshSwitchedOn() {
		this.contextRunner.withPropertyValues(NODES)
			.withUserConfiguration(EarlierRefreshCustomizerConfiguration.class)
			.run((context) -> {
				ClusterTopologyRefreshOptions refresh = clusterOptions(context).getTopologyRefreshOptions();
				assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
				assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(30));
				assertThat(refresh.getAdaptiveRefreshTriggers()).containsOnly(RefreshTrigger.MOVED_REDIRECT);
				assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(9));
				assertThat(refresh.getRefreshTriggersReconnectAttempts()).isEqualTo(7);
				assertThat(refresh.useDynamicRefreshSources()).isFalse();
				assertThat(refresh.isCloseStaleConnections()).isFalse();
			});
	}

	@Test
	void periodicRefreshOptionsKeepEveryOtherFieldOfTheOriginal() {
		ClusterTopologyRefreshOptions original = ClusterTopologyRefreshOptions.builder()
			.disableAllAdaptiveRefreshTriggers()
			.enableAdaptiveRefreshTrigger(RefreshTrigger.ASK_REDIRECT)
			.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(11))
			.refreshTriggersReconnectAttempts(3)
			.dynamicRefreshSources(false)
			.closeStaleConnections(false)
			.refreshPeriod(Duration.ofMinutes(7))
			.build();
		ClusterTopologyRefreshOptions periodic = new ClusterOptionsBuilderCustomizer.PeriodicRefreshOptions(original,
				Duration.ofSeconds(12));
		assertThat(periodic.isPeriodicRefreshEnabled()).isTrue();
		assertThat(periodic.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(12));
		assertThat(periodic.getAdaptiveRefreshTriggers()).containsOnly(RefreshTrigger.ASK_REDIRECT);
		assertThat(periodic.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(11));
		assertThat(periodic.getRefreshTriggersReconnectAttempts()).isEqualTo(3);
		assertThat(periodic.useDynamicRefreshSources()).isFalse();
		assertThat(periodic.isCloseStaleConnections()).isFalse();
		assertThat(original.isPeriodicRefreshEnabled()).isFalse();
	}

	@Test
	void nodeFilterPropertiesMapOntoTheClusterOptions() {
		this.contextRunner
			.withPropertyValues(NODES, "lettuce.tuning.cluster.node-filter.exclude-possibly-failed=false",
					"lettuce.tuning.cluster.node-filter.exclude-without-address=false")
			.run((context) -> assertThat(clusterOptions(context).getNodeFilter())
				.isInstanceOfSatisfying(ClusterNodeFilter.class, (filter) -> {
					assertThat(filter.isExcludeFailed()).isTrue();
					assertThat(filter.isExcludePossiblyFailed()).isFalse();
					assertThat(filter.isExcludeWithoutAddress()).isFalse();
				}));
	}

	@Test
	void maxRedirectsComeFromSpringBoot() {
		this.contextRunner.withPropertyValues(NODES)
			.run((context) -> assertThat(((ClusterClientOptions) clusterClient(context).getOptions()).getMaxRedirects())
				.isEqualTo(ClusterClientOptions.DEFAULT_MAX_REDIRECTS));
		this.contextRunner.withPropertyValues(NODES, "spring.data.redis.cluster.max-redirects=3")
			.run((context) -> assertThat(((ClusterClientOptions) clusterClient(context).getOptions()).getMaxRedirects())
				.isEqualTo(3));
	}

	@Test
	void userCustomizersRunAfterOurs() {
		this.contextRunner.withPropertyValues(NODES)
			.withUserConfiguration(UserCustomizerConfiguration.class)
			.run((context) -> {
				ClusterClientOptions options = clusterOptions(context);
				assertThat(options.isValidateClusterNodeMembership()).isTrue();
				assertThat(options.getTopologyRefreshOptions().getRefreshPeriod()).isEqualTo(Duration.ofSeconds(42));
			});
	}

	@Test
	void standaloneClientOptionsAreNotClusterOptions() {
		this.contextRunner
			.run((context) -> assertThat(clientOptions(context)).isNotInstanceOf(ClusterClientOptions.class));
	}

	@Test
	void theDefaultPeriodDepartsFromLettucesOnPurpose() {
		assertThat(ClusterTopologyRefreshOptions.DEFAULT_PERIODIC_REFRESH_ENABLED).isFalse();
		assertThat(ClusterOptionsBuilderCustomizer.DEFAULT_REFRESH_PERIOD)
			.isLessThan(ClusterTopologyRefreshOptions.DEFAULT_REFRESH_PERIOD_DURATION);
	}

	private static ClusterClientOptions clusterOptions(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		ClientOptions options = clientOptions(context);
		assertThat(options).isInstanceOf(ClusterClientOptions.class);
		return (ClusterClientOptions) options;
	}

	// The client Spring Data creates (without connecting) when the factory starts
	private static RedisClusterClient clusterClient(AssertableApplicationContext context) {
		return (RedisClusterClient) context.getBean(LettuceConnectionFactory.class).getNativeClient();
	}

	private static ClientOptions clientOptions(AssertableApplicationContext context) {
		return context.getBean(LettuceConnectionFactory.class)
			.getClientConfiguration()
			.getClientOptions()
			.orElseThrow();
	}

	@Configuration(proxyBeanMethods = false)
	static class ClusterConnectionDetailsConfiguration {

		@Bean
		DataRedisConnectionDetails redisConnectionDetails() {
			return new DataRedisConnectionDetails() {

				@Override
				public Cluster getCluster() {
					return () -> List.of(new Node("127.0.0.1", 7000), new Node("127.0.0.1", 7001));
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ClusterConfigurationBeanConfiguration {

		@Bean
		RedisClusterConfiguration redisClusterConfiguration() {
			return new RedisClusterConfiguration(List.of("127.0.0.1:7000"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EarlierRefreshCustomizerConfiguration {

		@Bean
		@Order(CustomizerOrder.LETTUCE_TUNING - 1)
		LettuceClientOptionsBuilderCustomizer earlierRefreshCustomizer() {
			return (builder) -> ((ClusterClientOptions.Builder) builder)
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
					.disableAllAdaptiveRefreshTriggers()
					.enableAdaptiveRefreshTrigger(RefreshTrigger.MOVED_REDIRECT)
					.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(9))
					.refreshTriggersReconnectAttempts(7)
					.dynamicRefreshSources(false)
					.closeStaleConnections(false)
					.build());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserCustomizerConfiguration {

		@Bean
		LettuceClientOptionsBuilderCustomizer userClusterCustomizer() {
			return (builder) -> {
				if (builder instanceof ClusterClientOptions.Builder cluster) {
					ClusterTopologyRefreshOptions current = cluster.build().getTopologyRefreshOptions();
					cluster.validateClusterNodeMembership(true)
						.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
							.enablePeriodicRefresh(Duration.ofSeconds(42))
							.adaptiveRefreshTriggersTimeout(current.getAdaptiveRefreshTimeout())
							.build());
				}
			};
		}

	}

}
