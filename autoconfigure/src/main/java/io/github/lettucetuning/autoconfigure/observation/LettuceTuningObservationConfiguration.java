package io.github.lettucetuning.autoconfigure.observation;

import java.util.List;
import java.util.Locale;
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
 * fast path where it applies (unless the application's customizer sets a tracing of its
 * own), and otherwise guards the spans of the Micrometer tracing that Spring Boot's
 * {@code LettuceObservationAutoConfiguration} puts on the client resources; see
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

		// A tracing on the built client resources is the application's (on the fast path
		// Spring Boot's customizer sets none): its observations record the commands, and
		// the fast path stands aside so that each is counted once.
		@Bean
		NettyCustomizerContribution lettuceTuningCommandMetersContribution(CommandObservationPath path,
				ObjectProvider<MeterRegistry> meterRegistry, Environment environment) {
			return (tracing) -> tracing.isEnabled() ? null : commandMeters(path, meterRegistry, environment);
		}

		private static @Nullable CommandMeters commandMeters(CommandObservationPath path,
				ObjectProvider<MeterRegistry> meterRegistry, Environment environment) {
			MeterRegistry registry = meterRegistry.getIfAvailable();
			if (!path.isFastPath() || registry == null) {
				return null;
			}
			Binder binder = Binder.get(environment);
			Map<String, String> commonKeyValues = binder
				.bind("management.observations.key-values", Bindable.mapOf(String.class, String.class))
				.orElse(Map.of());
			return new CommandMeters(registry, commonKeyValues, longTaskTimer(binder));
		}

		// Boot's meter handler creates no long-task timer when the property lists it
		private static boolean longTaskTimer(Binder binder) {
			List<String> ignored = binder
				.bind("management.metrics.observations.ignored-meters", Bindable.listOf(String.class))
				.orElse(List.of());
			return ignored.stream()
				.map((meter) -> meter.trim().toLowerCase(Locale.ROOT).replace('_', '-'))
				.noneMatch("long-task-timer"::equals);
		}

	}

}
