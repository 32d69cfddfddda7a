package io.github.lettucetuning.autoconfigure.observation;

import java.util.Map;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Whether Spring Boot observes Lettuce's commands: its
 * {@code LettuceObservationAutoConfiguration} is in the context and
 * {@code management.observations.enable} leaves the {@code lettuce} observation on. The
 * one place the starter asks, so the fast path and the {@code lettuce.command.*} timers
 * agree on the answer.
 */
public final class BootLettuceObservation {

	/**
	 * The name of Spring Boot's auto-configuration of the {@code lettuce} observation.
	 */
	public static final String CONFIGURATION = "org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration";

	private static final String SWITCH = "management.observations.enable";

	private BootLettuceObservation() {
	}

	/**
	 * Whether Spring Boot's {@code lettuce} observation is configured and switched on.
	 * @param beanFactory the bean factory, read for bean definitions only
	 * @param environment the environment
	 * @return whether Boot observes every command
	 */
	public static boolean observesCommands(ConfigurableListableBeanFactory beanFactory, Environment environment) {
		return configured(beanFactory) && enabled(environment);
	}

	static boolean configured(ConfigurableListableBeanFactory beanFactory) {
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		if (!ClassUtils.isPresent(CONFIGURATION, classLoader)) {
			return false;
		}
		Class<?> configuration = ClassUtils.resolveClassName(CONFIGURATION, classLoader);
		return beanFactory.getBeanNamesForType(configuration, true, false).length > 0;
	}

	// Spring Boot's lookup for an observation named 'lettuce': its own switch, then
	// 'all', then on.
	static boolean enabled(Environment environment) {
		Map<String, Boolean> enable = Binder.get(environment)
			.bind(SWITCH, Bindable.mapOf(String.class, Boolean.class))
			.orElse(Map.of());
		Boolean lettuce = enable.get("lettuce");
		return (lettuce != null) ? lettuce : enable.getOrDefault("all", true);
	}

}
