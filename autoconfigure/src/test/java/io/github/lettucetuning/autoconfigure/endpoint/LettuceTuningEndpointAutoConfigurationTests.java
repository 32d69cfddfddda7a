package io.github.lettucetuning.autoconfigure.endpoint;

import java.time.Duration;
import java.util.Map;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.advice.TuningAdvisor;
import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.health.LettuceTuningHealthContributorAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.endpoint.LettuceDescriptor;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.ClientStateReader;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.resolver.DefaultAddressResolverGroup;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningEndpointAutoConfiguration}.
 */
class LettuceTuningEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class,
				LettuceTuningEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=lettuce");

	@Test
	void endpointIsAvailableWhenExposed() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(LettuceEndpoint.class)
			.hasSingleBean(ClientEventRecorder.class));
	}

	@Test
	void endpointIsNotAvailableUnlessExposed() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, LettuceTuningEndpointAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceEndpoint.class)
				.doesNotHaveBean(ClientEventRecorder.class));
	}

	@Test
	void endpointCanBeSwitchedOff() {
		this.contextRunner.withPropertyValues("management.endpoint.lettuce.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceEndpoint.class));
	}

	@Test
	void describesTheEffectiveConfigurationWithoutTalkingToRedis() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=1", "spring.data.redis.timeout=150ms",
					"lettuce.tuning.connection.mode=multi", "lettuce.tuning.connection.multi.size=3",
					"lettuce.tuning.timer.tick=20ms")
			.run((context) -> {
				LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
				EffectiveConfiguration configuration = descriptor.configuration();
				assertThat(configuration.connections().mode()).isEqualTo("multi");
				assertThat(configuration.connections().shared()).isEqualTo(3);
				assertThat(configuration.connections().selection()).isEqualTo("round-robin");
				assertThat(configuration.threads().io()).isGreaterThanOrEqualTo(3);
				assertThat(configuration.timer().type()).isEqualTo("wheel");
				assertThat(configuration.timer().owner()).isEqualTo("lettuce-tuning");
				assertThat(configuration.timer().tick()).hasMillis(20);
				assertThat(configuration.commands().timeout()).hasMillis(150);
				assertThat(configuration.commands().expiry()).isTrue();
				assertThat(configuration.socket().transport()).isIn("epoll", "io_uring", "nio");
				assertThat(configuration.cluster()).isNull();
				assertThat(configuration.pool()).isNotNull();
				assertThat(descriptor.state().connections().total()).isEqualTo(3);
				assertThat(descriptor.state().connections().unopened()).isEqualTo(3);
				assertThat(descriptor.state().connections().inFlight()).containsExactly(0, 0, 0);
				assertThat(descriptor.state().connections().reactiveInFlight()).containsExactly(0, 0, 0);
				assertThat(descriptor.state().timer().pending()).isNotNull();
				assertThat(descriptor.state().events()).isNotNull();
				assertThat(descriptor.advice()).extracting("id").contains(TuningAdvisor.TIMEOUT_BELOW_TIMER_TICK);
			});
	}

	@Test
	void poolWaitDefaultsToTwoSecondsForDedicatedWork() {
		this.contextRunner.withPropertyValues("spring.data.redis.timeout=5s")
			.run((context) -> assertThat(poolMaxWait(context)).hasSeconds(2));
	}

	@Test
	void poolWaitDefaultsToTheCommandTimeoutInPooledMode() {
		this.contextRunner.withPropertyValues("lettuce.tuning.connection.mode=pooled", "spring.data.redis.timeout=5s")
			.run((context) -> assertThat(poolMaxWait(context)).hasSeconds(5));
		this.contextRunner.withPropertyValues("lettuce.tuning.connection.mode=pooled")
			.run((context) -> assertThat(poolMaxWait(context)).hasSeconds(60));
	}

	@Test
	void poolWaitSetByBootsPropertyIsUsedAsItIs() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.connection.mode=pooled",
					"spring.data.redis.lettuce.pool.max-wait=300ms")
			.run((context) -> assertThat(poolMaxWait(context)).hasMillis(300));
		this.contextRunner.withPropertyValues("spring.data.redis.lettuce.pool.max-wait=7s")
			.run((context) -> assertThat(poolMaxWait(context)).hasSeconds(7));
	}

	@Test
	void poolWaitSetToForeverIsTheApplicationsChoice() {
		this.contextRunner.withPropertyValues("spring.data.redis.lettuce.pool.max-wait=-1ms").run((context) -> {
			assertThat(poolMaxWait(context)).isNegative();
			assertThat(context.getBean(LettuceEndpoint.class).lettuce().advice()).extracting("id")
				.contains(TuningAdvisor.UNBOUNDED_POOL_WAIT);
		});
	}

	private static Duration poolMaxWait(ApplicationContext context) {
		EffectiveConfiguration.Pool pool = context.getBean(LettuceEndpoint.class).lettuce().configuration().pool();
		assertThat(pool).isNotNull();
		return pool.maxWait();
	}

	@Test
	void socketSettingsComeFromLettuceTuningsSocketBean() {
		this.contextRunner.run((context) -> {
			EffectiveSocketSettings applied = context.getBean(EffectiveSocketSettings.class);
			EffectiveConfiguration.Socket socket = context.getBean(LettuceEndpoint.class)
				.lettuce()
				.configuration()
				.socket();
			assertThat(socket.transport()).isEqualTo(applied.transport().displayName());
			assertThat(socket.keepAlive().active()).isEqualTo(applied.keepAlive().active());
			assertThat(socket.tcpUserTimeout().active()).isEqualTo(applied.tcpUserTimeout().active());
			assertThat(socket.flushConsolidation()).isEqualTo(256);
		});
	}

	@Test
	void theResolverInEffectIsReportedAsTheResourcesHaveIt() {
		this.contextRunner.run((context) -> assertThat(dns(context))
			.isEqualTo(new EffectiveConfiguration.Dns("lettuce-tuning", Duration.ofSeconds(5), "platform")));
		this.contextRunner.withPropertyValues("lettuce.tuning.dns.enabled=false")
			.run((context) -> assertThat(dns(context))
				.isEqualTo(new EffectiveConfiguration.Dns("lettuce", null, "platform")));
		this.contextRunner
			.withBean(ClientResourcesBuilderCustomizer.class,
					() -> (builder) -> builder.addressResolverGroup(DefaultAddressResolverGroup.INSTANCE))
			.run((context) -> assertThat(dns(context).resolver()).isEqualTo("jdk"));
	}

	private static EffectiveConfiguration.Dns dns(ApplicationContext context) {
		return context.getBean(LettuceEndpoint.class).lettuce().configuration().socket().dns();
	}

	@Test
	void flushConsolidationIsReportedAsTheResourcesHaveIt() {
		this.contextRunner.withPropertyValues("lettuce.tuning.socket.flush-consolidation.enabled=false")
			.run((context) -> assertThat(
					context.getBean(LettuceEndpoint.class).lettuce().configuration().socket().flushConsolidation())
				.isNull());
	}

	@Test
	void aNettyCustomizerOfTheApplicationIsReportedBesideFlushConsolidation() {
		this.contextRunner
			.withBean(ClientResourcesBuilderCustomizer.class,
					() -> (builder) -> builder.nettyCustomizer(new ApplicationNettyCustomizer()))
			.run((context) -> {
				EffectiveConfiguration.Socket socket = context.getBean(LettuceEndpoint.class)
					.lettuce()
					.configuration()
					.socket();
				assertThat(socket.flushConsolidation()).isNotNull();
				assertThat(socket.applicationNettyCustomizer()).isEqualTo(ApplicationNettyCustomizer.class.getName());
			});
		this.contextRunner.run((context) -> assertThat(
				context.getBean(LettuceEndpoint.class).lettuce().configuration().socket().applicationNettyCustomizer())
			.isNull());
	}

	@Test
	void withoutAppliedSocketSettingsTheClientOptionsAreRead() {
		this.contextRunner.run((context) -> {
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			ClientStateReader reader = ClientStateReader.builder(factory)
				.resources(context.getBean(ClientResources.class))
				.build();
			SocketOptions options = factory.getRequiredNativeClient().getOptions().getSocketOptions();
			EffectiveConfiguration.Socket socket = reader.configuration().socket();
			assertThat(socket.transport()).isIn("epoll", "io_uring", "kqueue", "nio");
			assertThat(socket.nativeTransport()).isEqualTo(!"nio".equals(socket.transport()));
			assertThat(socket.connectTimeout()).isEqualTo(options.getConnectTimeout());
			assertThat(socket.keepAlive().active()).isEqualTo(options.isKeepAlive());
			assertThat(socket.tcpUserTimeout().active()).isEqualTo(options.isEnableTcpUserTimeout());
		});
	}

	@Test
	void stockNettyTimerIsReportedWithItsTick() {
		this.contextRunner.withPropertyValues("lettuce.tuning.timer.type=netty").run((context) -> {
			EffectiveConfiguration.Timer timer = context.getBean(LettuceEndpoint.class)
				.lettuce()
				.configuration()
				.timer();
			assertThat(timer.type()).isEqualTo("netty");
			assertThat(timer.owner()).isEqualTo("lettuce");
			assertThat(timer.tick()).hasMillis(100);
		});
	}

	@Test
	void theBoundedRedisHealthContributorIsReported() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(LettuceTuningHealthContributorAutoConfiguration.class,
					DataRedisHealthContributorAutoConfiguration.class))
			.run((context) -> {
				LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
				assertThat(descriptor.configuration().health().bounded()).isTrue();
				assertThat(descriptor.configuration().health().unbounded()).isFalse();
				assertThat(descriptor.advice()).extracting("id").doesNotContain(TuningAdvisor.REDIS_HEALTH_UNBOUNDED);
			});
	}

	@Test
	void anApplicationsOwnRedisHealthIndicatorIsJudged() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(LettuceTuningHealthContributorAutoConfiguration.class,
					DataRedisHealthContributorAutoConfiguration.class))
			.withBean("redisHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build())
			.run((context) -> {
				LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
				assertThat(descriptor.configuration().health().bounded()).isFalse();
				assertThat(descriptor.configuration().health().unbounded()).isTrue();
				assertThat(descriptor.advice()).extracting("id").contains(TuningAdvisor.REDIS_HEALTH_UNBOUNDED);
			});
	}

	@Test
	void outageSettingsAndStateAreReported() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.resilience.fail-fast.grace=500ms",
					"lettuce.tuning.resilience.request-queue-size=5000")
			.run((context) -> {
				LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
				assertThat(descriptor.configuration().resilience()).isEqualTo(new EffectiveConfiguration.Resilience(
						true, Duration.ofMillis(500), true, Duration.ofSeconds(2), 5000));
				assertThat(descriptor.state().outages()).isNotNull();
				assertThat(descriptor.state().outages().unreachable()).isEmpty();
			});
	}

	@Test
	void blockedEventLoopsAreReportedWithTheirThreshold() {
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.blocked-loop-detection.threshold=300ms")
			.run((context) -> {
				ClientState.EventLoops eventLoops = context.getBean(LettuceEndpoint.class)
					.lettuce()
					.state()
					.eventLoops();
				assertThat(eventLoops).isNotNull();
				assertThat(eventLoops.threshold()).isEqualTo(Duration.ofMillis(300));
				assertThat(eventLoops.blockedSpells()).isZero();
				assertThat(eventLoops.blocked()).isEmpty();
				assertThat(eventLoops.lastBlocked()).isNull();
			});
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.blocked-loop-detection.enabled=false")
			.run((context) -> assertThat(context.getBean(LettuceEndpoint.class).lettuce().state().eventLoops())
				.isNull());
	}

	@Test
	@SuppressWarnings("unchecked")
	void responseHoldsNoSecret() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.username=app", "spring.data.redis.password=Sup3rS3cretPassw0rd",
					"spring.data.redis.url=redis://app:Sup3rS3cretPassw0rd@127.0.0.1:1")
			.run((context) -> {
				LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
				String json = JsonMapper.builder().build().writeValueAsString(descriptor);
				assertThat(json).contains("\"configuration\"").contains("\"advice\"").doesNotContain("Sup3rS3cret");
				Map<String, Object> tree = JsonMapper.builder().build().readValue(json, Map.class);
				assertThat(tree).containsKeys("configuration", "state", "advice");
			});
	}

	static class ApplicationNettyCustomizer implements NettyCustomizer {

	}

}
