package io.github.lettucetuning.autoconfigure.socket;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.socket.ClientAddressResolver;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.socket.FlushConsolidation;
import io.github.lettucetuning.socket.KeepAliveCustomizer;
import io.github.lettucetuning.socket.NettyTransport;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SocketOptions.KeepAliveOptions;
import io.lettuce.core.SocketOptions.TcpUserTimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.DefaultAddressResolverGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningSocketConfiguration}. The test classpath has epoll (and
 * io_uring) natives; a {@link FilteredClassLoader} stands for a platform without them.
 */
@ExtendWith(OutputCaptureExtension.class)
class LettuceTuningSocketConfigurationTests {

	private static final FilteredClassLoader WITHOUT_NATIVE_TRANSPORTS = new FilteredClassLoader(
			"io.netty.channel.epoll", "io.netty.channel.uring", "io.netty.channel.kqueue");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void nativeTransportGetsKeepAliveAndTcpUserTimeoutDerivedFromIt() {
		this.contextRunner.run((context) -> {
			EffectiveSocketSettings settings = context.getBean(EffectiveSocketSettings.class);
			assertThat(settings.transport()).isEqualTo(NettyTransport.EPOLL);
			assertThat(settings.keepAlive()).isEqualTo(new EffectiveSocketSettings.KeepAlive(true, true,
					Duration.ofSeconds(13), Duration.ofSeconds(13), 3));
			assertThat(settings.tcpUserTimeout())
				.isEqualTo(new EffectiveSocketSettings.TcpUserTimeout(true, Duration.ofSeconds(52)));
			assertThat(settings.inactiveReason()).isNull();
			SocketOptions socket = socketOptions(context);
			assertThat(socket.isKeepAlive()).isTrue();
			assertThat(socket.getKeepAlive().getIdle()).isEqualTo(Duration.ofSeconds(13));
			assertThat(socket.isEnableTcpUserTimeout()).isTrue();
			assertThat(socket.getTcpUserTimeout().getTcpUserTimeout()).isEqualTo(Duration.ofSeconds(52));
			// Lettuce's 10 s is replaced unless spring.data.redis.connect-timeout is set
			assertThat(socket.getConnectTimeout()).isEqualTo(Duration.ofSeconds(2));
			assertThat(socket.isTcpNoDelay()).isTrue();
		});
	}

	@Test
	void everyConnectionMergesFlushesByDefault() {
		this.contextRunner.run((context) -> {
			NettyCustomizer customizer = context.getBean(ClientResources.class).nettyCustomizer();
			assertThat(CompositeNettyCustomizer.find(customizer, FlushConsolidation.class))
				.satisfies((consolidation) -> assertThat(consolidation.maxFlushes())
					.isEqualTo(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES));
		});
	}

	@Test
	void flushConsolidationCanBeSwitchedOff() {
		this.contextRunner.withPropertyValues("lettuce.tuning.socket.flush-consolidation.enabled=false")
			.run((context) -> assertThat(CompositeNettyCustomizer
				.find(context.getBean(ClientResources.class).nettyCustomizer(), FlushConsolidation.class)).isNull());
	}

	@Test
	void aNettyCustomizerOfTheUsersRunsBeforeFlushConsolidationWhateverItsOrder() {
		for (Class<?> configuration : List.of(EarlyNettyCustomizerConfiguration.class,
				LateNettyCustomizerConfiguration.class)) {
			this.contextRunner.withUserConfiguration(configuration).run((context) -> {
				NettyCustomizer installed = context.getBean(ClientResources.class).nettyCustomizer();
				assertThat(CompositeNettyCustomizer.application(installed)).as(configuration.getSimpleName())
					.isSameAs(context.getBean("usersNettyCustomizer"));
				assertThat(CompositeNettyCustomizer.find(installed, FlushConsolidation.class)).isNotNull();
			});
		}
	}

	@Test
	void theLastNettyCustomizerOfTheUsersWinsAsOnLettucesBuilder() {
		NettyCustomizer first = new NettyCustomizer() {
		};
		NettyCustomizer second = new NettyCustomizer() {
		};
		this.contextRunner
			.withBean("first", ClientResourcesBuilderCustomizer.class,
					() -> (builder) -> builder.nettyCustomizer(first))
			.withBean("second", ClientResourcesBuilderCustomizer.class,
					() -> (builder) -> builder.nettyCustomizer(second))
			.run((context) -> assertThat(
					CompositeNettyCustomizer.application(context.getBean(ClientResources.class).nettyCustomizer()))
				.isSameAs(second));
	}

	@Test
	void withoutFlushConsolidationTheUsersNettyCustomizerIsStillComposed() {
		this.contextRunner.withUserConfiguration(LateNettyCustomizerConfiguration.class)
			.withPropertyValues("lettuce.tuning.socket.flush-consolidation.enabled=false")
			.run((context) -> {
				NettyCustomizer installed = context.getBean(ClientResources.class).nettyCustomizer();
				assertThat(CompositeNettyCustomizer.application(installed))
					.isSameAs(context.getBean("usersNettyCustomizer"));
				assertThat(CompositeNettyCustomizer.find(installed, FlushConsolidation.class)).isNull();
			});
	}

	@Test
	void bootConnectTimeoutIsKept() {
		this.contextRunner.withPropertyValues("spring.data.redis.connect-timeout=700ms").run((context) -> {
			SocketOptions socket = socketOptions(context);
			assertThat(socket.getConnectTimeout()).isEqualTo(Duration.ofMillis(700));
			assertThat(socket.isEnableTcpUserTimeout()).isTrue();
		});
	}

	@Test
	void aKeepAliveCustomizedBeforeTheStarterIsKeptAndDrivesTheTcpUserTimeout() {
		this.contextRunner
			.withBean(KeepAliveCustomizer.class,
					() -> new KeepAliveCustomizer(Duration.ofSeconds(5), Duration.ofSeconds(2), 4))
			.run((context) -> {
				KeepAliveOptions keepAlive = socketOptions(context).getKeepAlive();
				assertThat(keepAlive.getIdle()).isEqualTo(Duration.ofSeconds(5));
				assertThat(keepAlive.getInterval()).isEqualTo(Duration.ofSeconds(2));
				assertThat(keepAlive.getCount()).isEqualTo(4);
				assertThat(socketOptions(context).getTcpUserTimeout().getTcpUserTimeout())
					.isEqualTo(Duration.ofSeconds(13));
			});
	}

	@Test
	void tcpUserTimeoutCanBeSetOrSwitchedOff() {
		this.contextRunner.withPropertyValues("lettuce.tuning.socket.tcp-user-timeout.duration=20s")
			.run((context) -> assertThat(socketOptions(context).getTcpUserTimeout().getTcpUserTimeout())
				.isEqualTo(Duration.ofSeconds(20)));
		this.contextRunner.withPropertyValues("lettuce.tuning.socket.tcp-user-timeout.enabled=false").run((context) -> {
			assertThat(socketOptions(context).isEnableTcpUserTimeout()).isFalse();
			assertThat(context.getBean(EffectiveSocketSettings.class).tcpUserTimeout().active()).isFalse();
			assertThat(context.getBean(EffectiveSocketSettings.class).inactiveReason()).isNull();
		});
	}

	@Test
	void aKeepAliveSwitchedOffByTheApplicationStaysOff() {
		this.contextRunner
			.withBean("keepAliveOff", LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> builder.socketOptions(SocketOptions.builder().keepAlive(false).build()))
			.run((context) -> assertThat(socketOptions(context).isKeepAlive()).isFalse());
	}

	@Test
	void withoutNativeTransportTheApplicationStartsAndSaysSoOnce(CapturedOutput output) {
		this.contextRunner.withClassLoader(WITHOUT_NATIVE_TRANSPORTS).run((context) -> {
			assertThat(context).hasNotFailed();
			EffectiveSocketSettings settings = context.getBean(EffectiveSocketSettings.class);
			assertThat(settings.transport()).isEqualTo(NettyTransport.NIO);
			assertThat(settings.tcpUserTimeout().active()).isFalse();
			assertThat(settings.inactiveReason()).contains("TCP_USER_TIMEOUT needs a native transport");
			assertThat(socketOptions(context).isEnableTcpUserTimeout()).isFalse();
			assertThat(socketOptions(context).isKeepAlive()).isTrue();
		});
		assertThat(output.getAll().lines().filter((line) -> line.contains("lettuce-tuning: TCP_USER_TIMEOUT")))
			.hasSize(1);
	}

	@Test
	void explicitEpollWhereItIsMissingFailsStartup() {
		this.contextRunner.withClassLoader(WITHOUT_NATIVE_TRANSPORTS)
			.withPropertyValues("lettuce.tuning.socket.transport=epoll")
			.run((context) -> assertUnavailable(context));
	}

	@Test
	void explicitIoUringWhereItIsMissingFailsStartup() {
		this.contextRunner.withClassLoader(WITHOUT_NATIVE_TRANSPORTS)
			.withPropertyValues("lettuce.tuning.socket.transport=io-uring")
			.run((context) -> assertUnavailable(context));
	}

	@Test
	void explicitEpollWhereItIsAvailable() {
		this.contextRunner.withPropertyValues("lettuce.tuning.socket.transport=epoll")
			.run((context) -> assertThat(context.getBean(EffectiveSocketSettings.class).transport())
				.isEqualTo(NettyTransport.EPOLL));
	}

	@Test
	void userCustomizersRunAfterOurs() {
		this.contextRunner.withUserConfiguration(UserSocketCustomizerConfiguration.class)
			.run((context) -> assertThat(socketOptions(context).isEnableTcpUserTimeout()).isFalse());
	}

	@Test
	void reconnectBackoffIsCappedAndJittered() {
		this.contextRunner.run((context) -> assertThat(delays(context, 20))
			.allSatisfy((delay) -> assertThat(delay).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1)))
			.satisfies((delays) -> assertThat(delays.stream().distinct().count()).isGreaterThan(5)));
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.reconnect.max-delay=5s")
			.run((context) -> assertThat(delays(context, 20))
				.allSatisfy((delay) -> assertThat(delay).isBetween(Duration.ofMillis(2500), Duration.ofSeconds(5))));
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.reconnect.jitter=decorrelated")
			.run((context) -> assertThat(delays(context, 20))
				.allSatisfy((delay) -> assertThat(delay).isBetween(Duration.ZERO, Duration.ofSeconds(1)))
				.satisfies((delays) -> assertThat(delays.stream().distinct().count()).isGreaterThan(5)));
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.reconnect.jitter=none")
			.run((context) -> assertThat(delays(context, 20)).containsOnly(Duration.ofSeconds(1)));
	}

	@Test
	void eachClientResolvesWithAResolverOfItsOwnWhoseAnswersLiveFiveSeconds() {
		this.contextRunner.run((context) -> {
			AddressResolverGroup<?> group = context.getBean(ClientResources.class).addressResolverGroup();
			assertThat(group).isNotSameAs(DefaultClientResources.DEFAULT_ADDRESS_RESOLVER_GROUP);
			ClientAddressResolver resolver = ClientAddressResolver.of(group);
			assertThat(resolver).isNotNull();
			assertThat(resolver.maxTtl()).isEqualTo(Duration.ofSeconds(5))
				.isEqualTo(ClientAddressResolver.DEFAULT_MAX_TTL)
				.isEqualTo(new LettuceTuningProperties().getDns().getMaxTtl());
		});
		this.contextRunner.withPropertyValues("lettuce.tuning.dns.max-ttl=0s")
			.run((context) -> assertThat(
					ClientAddressResolver.of(context.getBean(ClientResources.class).addressResolverGroup()).maxTtl())
				.isZero());
	}

	@Test
	void theResolverCanBeLeftToLettuceOrReplacedByTheApplication() {
		this.contextRunner.withPropertyValues("lettuce.tuning.dns.enabled=false")
			.run((context) -> assertThat(context.getBean(ClientResources.class).addressResolverGroup())
				.isSameAs(DefaultClientResources.DEFAULT_ADDRESS_RESOLVER_GROUP));
		this.contextRunner
			.withBean(ClientResourcesBuilderCustomizer.class,
					() -> (builder) -> builder.addressResolverGroup(DefaultAddressResolverGroup.INSTANCE))
			.run((context) -> assertThat(context.getBean(ClientResources.class).addressResolverGroup())
				.isSameAs(DefaultAddressResolverGroup.INSTANCE));
	}

	@Test
	void firstReconnectAttemptGoesAtOnceAndTheBackoffStartsWithTheSecond() {
		for (String jitter : List.of("full", "decorrelated", "none")) {
			this.contextRunner.withPropertyValues("lettuce.tuning.resilience.reconnect.jitter=" + jitter)
				.run((context) -> {
					assertThat(delays(context, 1)).as(jitter).containsOnly(Duration.ZERO);
					assertThat(delays(context, 2)).as(jitter)
						.allSatisfy((delay) -> assertThat(delay).isBetween(Duration.ZERO, Duration.ofMillis(24)));
				});
		}
		this.contextRunner.run((context) -> assertThat(delays(context, 2))
			.allSatisfy((delay) -> assertThat(delay).isBetween(Duration.ofMillis(4), Duration.ofMillis(8))));
	}

	// Twenty connections' delays for their attempt-th attempt, each connection's watchdog
	// drawing from a delay of its own, attempt after attempt.
	private static List<Duration> delays(ApplicationContext context, int attempt) {
		ClientResources resources = context.getBean(ClientResources.class);
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			Delay delay = resources.reconnectDelay();
			Duration last = Duration.ZERO;
			for (int n = 1; n <= attempt; n++) {
				last = delay.createDelay(n);
			}
			delays.add(last);
		}
		return delays;
	}

	@Test
	void invalidValuesFailStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("lettuce.tuning.socket.tcp-user-timeout.duration=0s")
			.run((context) -> assertInvalid(context, "lettuce.tuning.socket.tcp-user-timeout.duration"));
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.reconnect.max-delay=0s")
			.run((context) -> assertInvalid(context, "lettuce.tuning.resilience.reconnect.max-delay"));
	}

	@Test
	void disabledLeavesSpringBootsSocketOptions() {
		this.contextRunner.withPropertyValues("lettuce.tuning.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(EffectiveSocketSettings.class);
			assertThat(socketOptions(context).isEnableTcpUserTimeout()).isFalse();
		});
	}

	@Test
	void derivedTcpUserTimeoutMatchesLettucesFromItsKeepAlive() {
		LettuceTuningProperties.Socket socket = new LettuceTuningProperties().getSocket();
		assertThat(SocketSettingsResolver.tcpUserTimeout(socket.getTcpUserTimeout().getDuration(),
				SocketOptions.create().getKeepAlive()))
			.isEqualTo(TcpUserTimeoutOptions.DEFAULT_TCP_USER_TIMEOUT);
		// Where lettuce-tuning departs from Lettuce, on purpose
		assertThat(socket.getTcpUserTimeout().isEnabled()).isNotEqualTo(SocketOptions.DEFAULT_TCP_USER_TIMEOUT_ENABLED);
	}

	private static void assertInvalid(AssertableApplicationContext context, String property) {
		assertThat(context).hasFailed();
		assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure())).isInstanceOfSatisfying(
				InvalidConfigurationPropertyValueException.class, (ex) -> assertThat(ex.getName()).isEqualTo(property));
	}

	// An unavailable transport is not a bad value: lettuce-tuning's own analyzer explains
	// it.
	private static void assertUnavailable(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure())).isInstanceOfSatisfying(
				InvalidTuningPropertyException.class,
				(ex) -> assertThat(ex.getProperty()).isEqualTo("lettuce.tuning.socket.transport"));
	}

	private static SocketOptions socketOptions(AssertableApplicationContext context) {
		ClientOptions options = context.getBean(LettuceConnectionFactory.class)
			.getClientConfiguration()
			.getClientOptions()
			.orElseThrow();
		return options.getSocketOptions();
	}

	@Configuration(proxyBeanMethods = false)
	static class UserSocketCustomizerConfiguration {

		@Bean
		LettuceClientOptionsBuilderCustomizer userSocketCustomizer() {
			return (builder) -> builder.socketOptions(
					SocketOptions.builder().tcpUserTimeout(TcpUserTimeoutOptions.builder().disable().build()).build());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LateNettyCustomizerConfiguration {

		@Bean
		NettyCustomizer usersNettyCustomizer() {
			return new NettyCustomizer() {
			};
		}

		@Bean
		ClientResourcesBuilderCustomizer usersResourcesCustomizer(NettyCustomizer usersNettyCustomizer) {
			return (builder) -> builder.nettyCustomizer(usersNettyCustomizer);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EarlyNettyCustomizerConfiguration {

		@Bean
		NettyCustomizer usersNettyCustomizer() {
			return new NettyCustomizer() {
			};
		}

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer usersResourcesCustomizer(NettyCustomizer usersNettyCustomizer) {
			return (builder) -> builder.nettyCustomizer(usersNettyCustomizer);
		}

	}

}
