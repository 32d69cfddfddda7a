package io.github.lettucetuning.autoconfigure.observation;

import io.lettuce.core.tracing.MicrometerTracing;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Guards the spans of the Micrometer tracing that Spring Boot's
 * {@code LettuceObservationAutoConfiguration} (or an application's customizer) puts on
 * the client resources; see {@link io.github.lettucetuning.observation.GuardedTracing}.
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

}
