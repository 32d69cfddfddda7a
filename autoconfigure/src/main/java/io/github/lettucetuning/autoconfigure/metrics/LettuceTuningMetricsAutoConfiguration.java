package io.github.lettucetuning.autoconfigure.metrics;

import io.github.lettucetuning.autoconfigure.CustomizerOrder;
import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.state.ClientEventRecorderConfiguration;
import io.github.lettucetuning.autoconfigure.state.ClientStateConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.metrics.ClientEventMetrics;
import io.github.lettucetuning.metrics.ConnectionMetrics;
import io.github.lettucetuning.metrics.DedicatedPoolMetrics;
import io.github.lettucetuning.metrics.NearCacheMetrics;
import io.github.lettucetuning.metrics.OutageMetrics;
import io.github.lettucetuning.metrics.TimerMetrics;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.github.lettucetuning.state.ClientStateReader;
import io.lettuce.core.RedisClient;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.pool2.impl.GenericObjectPool;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.Order;

/**
 * Auto-configuration of Lettuce command latency metrics with Spring Boot 3's meter names
 * (unless Spring Boot's own Lettuce observation already times every command, see
 * {@link OnCommandLatencyRecording}) and of lettuce-tuning's own meters; without
 * Micrometer, command latencies are not recorded at all.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DataRedisAutoConfiguration.class, after = LettuceTuningAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
				OnCommandLatencyRecording.BOOT_OBSERVATION })
@ConditionalOnClass(RedisClient.class)
@ConditionalOnBooleanProperty(name = "lettuce.tuning.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "spring.data.redis.client-type", havingValue = "lettuce", matchIfMissing = true)
@EnableConfigurationProperties(LettuceTuningProperties.class)
public final class LettuceTuningMetricsAutoConfiguration {

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	CommandLatencyRecorderCustomizer lettuceTuningCommandLatencyRecorderCustomizer(
			ObjectProvider<CommandLatencyRecorder> commandLatencyRecorder) {
		return new CommandLatencyRecorderCustomizer(commandLatencyRecorder);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ MeterRegistry.class, MicrometerCommandLatencyRecorder.class })
	@ConditionalOnBean(MeterRegistry.class)
	@Conditional(OnCommandLatencyRecording.class)
	static class CommandLatencyConfiguration {

		// Lettuce's defaults; an application's MicrometerOptions bean tunes histogram,
		// percentiles and tags.
		@Bean
		@ConditionalOnMissingBean
		MicrometerOptions lettuceTuningMicrometerOptions() {
			return MicrometerOptions.create();
		}

		@Bean
		@ConditionalOnMissingBean(CommandLatencyRecorder.class)
		MicrometerCommandLatencyRecorder lettuceTuningCommandLatencyRecorder(MeterRegistry meterRegistry,
				MicrometerOptions options) {
			return new MicrometerCommandLatencyRecorder(meterRegistry, options);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean({ MeterRegistry.class, LettuceTuningConnectionFactory.class })
	@ConditionalOnBooleanProperty(name = "lettuce.tuning.metrics.enabled", matchIfMissing = true)
	@Import({ ClientEventRecorderConfiguration.class, ClientStateConfiguration.class })
	static class TuningMetersConfiguration {

		@Bean
		ConnectionMetrics lettuceTuningConnectionMetrics(ClientStateReader clientState) {
			return new ConnectionMetrics(clientState);
		}

		@Bean
		TimerMetrics lettuceTuningTimerMetrics(ClientStateReader clientState) {
			return new TimerMetrics(() -> clientState.read().timer());
		}

		@Bean
		ClientEventMetrics lettuceTuningClientEventMetrics(ClientEventRecorder clientEventRecorder) {
			return new ClientEventMetrics(clientEventRecorder);
		}

		@Bean
		NearCacheMetrics lettuceTuningNearCacheMetrics(ClientStateReader clientState) {
			return new NearCacheMetrics(clientState);
		}

		@Bean
		@ConditionalOnBean(OutageGuard.class)
		OutageMetrics lettuceTuningOutageMetrics(ClientStateReader clientState) {
			return new OutageMetrics(clientState);
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(GenericObjectPool.class)
		static class DedicatedPoolMetricsConfiguration {

			@Bean
			DedicatedPoolMetrics lettuceTuningDedicatedPoolMetrics(ClientStateReader clientState) {
				return new DedicatedPoolMetrics(clientState);
			}

		}

	}

}
