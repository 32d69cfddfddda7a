package io.github.lettucetuning.autoconfigure.metrics;

import io.github.lettucetuning.autoconfigure.observation.BootLettuceObservation;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Whether lettuce-tuning records the {@code lettuce.command.*} timers. An explicit
 * {@code lettuce.tuning.metrics.command-latency.enabled} decides. Left unset, they are
 * recorded only when Spring Boot's Lettuce observation is not timing every command
 * already: measuring each command twice cost about 6% of the client's CPU at 200 threads,
 * for a second timer of the same thing.
 */
final class OnCommandLatencyRecording extends SpringBootCondition implements ConfigurationCondition {

	static final String PROPERTY = "lettuce.tuning.metrics.command-latency.enabled";

	static final String BOOT_OBSERVATION = BootLettuceObservation.CONFIGURATION;

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConditionMessage.Builder message = ConditionMessage.forCondition("Command latency recording");
		Boolean enabled = context.getEnvironment().getProperty(PROPERTY, Boolean.class);
		if (enabled != null) {
			return new ConditionOutcome(enabled, message.because(PROPERTY + " is " + enabled));
		}
		if (bootObservesCommands(context)) {
			return ConditionOutcome.noMatch(message
				.because("Spring Boot's 'lettuce' observation times every command and " + PROPERTY + " is not set"));
		}
		return ConditionOutcome.match(message.because("Spring Boot's 'lettuce' observation is off"));
	}

	private static boolean bootObservesCommands(ConditionContext context) {
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		return beanFactory != null && BootLettuceObservation.observesCommands(beanFactory, context.getEnvironment());
	}

}
