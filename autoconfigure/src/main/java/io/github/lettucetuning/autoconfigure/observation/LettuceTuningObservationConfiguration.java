package io.github.lettucetuning.autoconfigure.observation;

import java.util.Map;

import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
import io.github.lettucetuning.observation.CommandMeters;
import io.github.lettucetuning.observation.CommandObservationPath;
import io.lettuce.core.tracing.MicrometerTracing;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Decides who records the {@code lettuce} command meters, records them on the starter's
 * fast path where it applies, and otherwise guards the spans of the Micrometer tracing
 * that Spring Boot's {@code LettuceObservationAutoConfiguration} (or an application's
 * customizer) puts on the client resources; see
 * {@link io.github.lettucetuning.observation.CommandMeters} and
 * {@link io.github.lettucetuning.observation.GuardedTracing}.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(MicrometerTracing.class)
public final class LettuceTuningObservationConfiguration {

	@Bean
	static TracingGuardPostProcessor lettuceTuningTracingGuard() {
		return new TracingGuardPostProcessor();
	}

	@Bean
	CommandObservationPath lettuceTuningCommandObservationPath(ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		return new CommandObservationPathResolver(beanFactory, environment).resolve();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class CommandMetersConfiguration {

		@Bean
		NettyCustomizerContribution lettuceTuningCommandMetersContribution(CommandObservationPath path,
				ObjectProvider<MeterRegistry> meterRegistry, Environment environment) {
			return () -> commandMeters(path, meterRegistry, environment);
		}

		private static @Nullable CommandMeters commandMeters(CommandObservationPath path,
				ObjectProvider<MeterRegistry> meterRegistry, Environment environment) {
			MeterRegistry registry = meterRegistry.getIfAvailable();
			if (!path.isFastPath() || registry == null) {
				return null;
			}
			Map<String, String> commonKeyValues = Binder.get(environment)
				.bind("management.observations.key-values", Bindable.mapOf(String.class, String.class))
				.orElse(Map.of());
			return new CommandMeters(registry, commonKeyValues);
		}

	}

}
