package io.github.lettucetuning.autoconfigure.resources;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.endpoint.LettuceTuningEndpointAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.observation.LettuceSeries;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.NettyCustomizer;
import io.lettuce.core.tracing.MicrometerTracing;
import io.micrometer.observation.ObservationRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application's {@code ClientResourcesBuilderCustomizer} that sets a Netty customizer
 * or a tracing of its own, ordered before and after the starter's customizers, against a
 * real {@code redis-server}, on stock Spring Boot and on the starter side by side: the
 * application's handler sees what it sees on stock, the {@code lettuce} timer (scraped as
 * {@code /actuator/prometheus} serves it) counts every command once, as on stock, and the
 * starter's outage guard stays on the connections.
 */
@RedisStandaloneTest
@Timeout(180)
class ApplicationCustomizersIntegrationTests {

	private static final int SETS = 500;

	private final RedisStandalone redis;

	ApplicationCustomizersIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void flush() {
		this.redis.node().command("FLUSHALL");
	}

	@Test
	void applicationNettyCustomizerRunsBesideTheStartersWhateverItsOrder() {
		for (Class<?> configuration : List.of(EarlyNettyCustomizer.class, LateNettyCustomizer.class)) {
			Counts stock = run(stock().withUserConfiguration(configuration), (context) -> {
			});
			Counts starter = run(starter().withUserConfiguration(configuration), (context) -> {
				Channel channel = firstChannel(context);
				List<String> names = channel.pipeline().names();
				assertThat(names).as(configuration.getSimpleName()).contains(OutageGuard.HANDLER_NAME);
				assertThat(names.indexOf(CountingHandler.NAME)).isLessThan(names.indexOf(OutageGuard.HANDLER_NAME));
				EffectiveConfiguration reported = context.getBean(LettuceEndpoint.class).lettuce().configuration();
				assertThat(reported.commandMeters().path()).isEqualTo("fast-path");
				assertThat(reported.socket().applicationNettyCustomizer())
					.isEqualTo(CountingNettyCustomizer.class.getName());
				assertThat(reported.resilience()).isNotNull();
			});
			assertThat(stock.lettuceSets()).as("stock, " + configuration.getSimpleName()).isEqualTo(SETS);
			assertThat(stock.handlerSets()).isEqualTo(SETS);
			assertThat(starter).as("starter, " + configuration.getSimpleName()).isEqualTo(stock);
		}
	}

	@Test
	void applicationTracingCountsEachCommandOnceWhateverItsOrder() {
		for (Class<?> configuration : List.of(EarlyTracing.class, LateTracing.class)) {
			Counts stock = run(stock().withUserConfiguration(configuration, LateNettyCustomizer.class), (context) -> {
			});
			Counts starter = run(starter().withUserConfiguration(configuration, LateNettyCustomizer.class),
					(context) -> {
						EffectiveConfiguration.CommandMeters meters = context.getBean(LettuceEndpoint.class)
							.lettuce()
							.configuration()
							.commandMeters();
						assertThat(meters.path()).as(configuration.getSimpleName()).isEqualTo("application-tracing");
						assertThat(meters.reason()).contains(MicrometerTracing.class.getName());
						Channel channel = firstChannel(context);
						assertThat(channel.pipeline().names()).contains(OutageGuard.HANDLER_NAME)
							.doesNotContain("lettuceTuningCommandMeters");
					});
			assertThat(stock.lettuceSets()).as("stock, " + configuration.getSimpleName()).isEqualTo(SETS);
			assertThat(starter).as("starter, " + configuration.getSimpleName()).isEqualTo(stock);
		}
	}

	private Counts run(ApplicationContextRunner runner, ContextCheck check) {
		Counts[] counts = new Counts[1];
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			for (int i = 0; i < SETS; i++) {
				template.opsForValue().set("key:" + i, "value:" + i);
			}
			// The observation stops on the event loop, possibly after the caller returned
			await().atMost(Duration.ofSeconds(10)).until(() -> lettuceSets(context) >= SETS);
			check.accept(context);
			CountingNettyCustomizer customizer = context.getBean(CountingNettyCustomizer.class);
			counts[0] = new Counts(lettuceSets(context), customizer.bootstraps.get(), customizer.channels.size(),
					customizer.sets.get());
		});
		return counts[0];
	}

	private static Channel firstChannel(AssertableApplicationContext context) {
		List<Channel> channels = context.getBean(CountingNettyCustomizer.class).channels;
		assertThat(channels).as("channels the application's Netty customizer saw").isNotEmpty();
		return channels.get(0);
	}

	private static long lettuceSets(AssertableApplicationContext context) {
		return (long) LettuceSeries.count(LettuceSeries.scrape(context), "SET", "");
	}

	private ApplicationContextRunner stock() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class,
					LettuceObservationAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=10s",
					"management.endpoints.web.exposure.include=prometheus,lettuce");
	}

	private ApplicationContextRunner starter() {
		return stock().withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
				LettuceTuningMetricsAutoConfiguration.class, LettuceTuningEndpointAutoConfiguration.class));
	}

	@FunctionalInterface
	interface ContextCheck {

		void accept(AssertableApplicationContext context) throws Exception;

	}

	/**
	 * What one run counted.
	 *
	 * @param lettuceSets the count of the {@code lettuce} timer's SET series
	 * @param bootstraps the bootstraps the application's customizer saw
	 * @param channels the channels the application's customizer saw
	 * @param handlerSets the SET commands the application's handler saw written
	 */
	record Counts(long lettuceSets, int bootstraps, int channels, int handlerSets) {

	}

	/**
	 * An application's Netty customizer: a handler on every channel that counts the SET
	 * commands written.
	 */
	static class CountingNettyCustomizer implements NettyCustomizer {

		final AtomicInteger bootstraps = new AtomicInteger();

		final List<Channel> channels = new CopyOnWriteArrayList<>();

		final AtomicInteger sets = new AtomicInteger();

		@Override
		public void afterBootstrapInitialized(Bootstrap bootstrap) {
			this.bootstraps.incrementAndGet();
		}

		@Override
		public void afterChannelInitialized(Channel channel) {
			this.channels.add(channel);
			channel.pipeline().addLast(CountingHandler.NAME, new CountingHandler(this.sets));
		}

	}

	@ChannelHandler.Sharable
	static class CountingHandler extends ChannelDuplexHandler {

		static final String NAME = "applicationCountingHandler";

		private final AtomicInteger sets;

		CountingHandler(AtomicInteger sets) {
			this.sets = sets;
		}

		@Override
		public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
			if (msg instanceof Collection<?> commands) {
				commands.forEach(this::count);
			}
			else {
				count(msg);
			}
			super.write(ctx, msg, promise);
		}

		private void count(Object msg) {
			if (msg instanceof RedisCommand<?, ?, ?> command && command.getType() == CommandType.SET) {
				this.sets.incrementAndGet();
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LateNettyCustomizer {

		@Bean
		CountingNettyCustomizer countingNettyCustomizer() {
			return new CountingNettyCustomizer();
		}

		@Bean
		ClientResourcesBuilderCustomizer applicationNettyCustomizer(CountingNettyCustomizer customizer) {
			return (builder) -> builder.nettyCustomizer(customizer);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EarlyNettyCustomizer {

		@Bean
		CountingNettyCustomizer countingNettyCustomizer() {
			return new CountingNettyCustomizer();
		}

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer applicationNettyCustomizer(CountingNettyCustomizer customizer) {
			return (builder) -> builder.nettyCustomizer(customizer);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LateTracing {

		@Bean
		ClientResourcesBuilderCustomizer applicationTracing(ObservationRegistry observationRegistry) {
			return (builder) -> builder.tracing(new MicrometerTracing(observationRegistry, "redis"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EarlyTracing {

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer applicationTracing(ObservationRegistry observationRegistry) {
			return (builder) -> builder.tracing(new MicrometerTracing(observationRegistry, "redis"));
		}

	}

}
