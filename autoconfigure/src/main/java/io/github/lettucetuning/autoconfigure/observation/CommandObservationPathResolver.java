package io.github.lettucetuning.autoconfigure.observation;

import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.observation.CommandObservationPath.Path;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Decides who records the {@code lettuce} command meters: the starter's fast path, when
 * nothing but Spring Boot's meter handler would see Lettuce's observations, or Boot's
 * observation, as without the starter. Reads only bean definitions and properties:
 * nothing is created to decide.
 */
final class CommandObservationPathResolver {

	static final String PROPERTY = "lettuce.tuning.metrics.fast-path.enabled";

	private static final String BOOT_FILTER_PREDICATE = "org.springframework.boot.micrometer.observation.autoconfigure.PropertiesObservationFilterPredicate";

	private static final String METER_HANDLER = "io.micrometer.core.instrument.observation.DefaultMeterObservationHandler";

	private static final String TRACER = "io.micrometer.tracing.Tracer";

	private static final String[] APPLICATION_COMPONENTS = { "io.micrometer.observation.ObservationHandler",
			"io.micrometer.observation.ObservationPredicate", "io.micrometer.observation.ObservationFilter",
			"io.micrometer.observation.GlobalObservationConvention",
			"org.springframework.boot.micrometer.observation.autoconfigure.ObservationRegistryCustomizer" };

	private final ConfigurableListableBeanFactory beanFactory;

	private final Environment environment;

	CommandObservationPathResolver(ConfigurableListableBeanFactory beanFactory, Environment environment) {
		this.beanFactory = beanFactory;
		this.environment = environment;
	}

	CommandObservationPath resolve() {
		if (!BootLettuceObservation.configured(this.beanFactory)) {
			return new CommandObservationPath(Path.NONE,
					"Spring Boot's 'lettuce' observation is not configured (no ObservationRegistry)");
		}
		String reason = reasonForBootObservation();
		if (reason != null) {
			return new CommandObservationPath(Path.BOOT_OBSERVATION, reason);
		}
		return new CommandObservationPath(Path.FAST_PATH,
				"only Spring Boot's meter handler would see Lettuce's observations, so lettuce-tuning records the "
						+ "'lettuce' timer and the 'lettuce.active' long-task timer itself (set " + PROPERTY
						+ "=false to keep Boot's observation)");
	}

	private @Nullable String reasonForBootObservation() {
		if (!this.environment.getProperty(PROPERTY, Boolean.class, true)) {
			return PROPERTY + " is false";
		}
		if (!BootLettuceObservation.enabled(this.environment)) {
			return "management.observations.enable switches the 'lettuce' observation off";
		}
		if (!beansOfType("io.micrometer.core.instrument.MeterRegistry")) {
			return "there is no MeterRegistry to record meters in";
		}
		if (beansOfType(TRACER)) {
			return "a tracing bridge (an io.micrometer.tracing.Tracer bean) turns Lettuce's observations into spans";
		}
		String component = applicationObservationComponent();
		if (component != null) {
			return "the application's " + component + " would see Lettuce's observations";
		}
		return null;
	}

	private @Nullable String applicationObservationComponent() {
		for (String typeName : APPLICATION_COMPONENTS) {
			Class<?> type = type(typeName);
			if (type == null) {
				continue;
			}
			for (String name : this.beanFactory.getBeanNamesForType(type, true, false)) {
				Class<?> beanType = this.beanFactory.getType(name, false);
				String className = (beanType != null) ? beanType.getName() : "";
				if (!className.equals(METER_HANDLER) && !className.equals(BOOT_FILTER_PREDICATE)) {
					return type.getSimpleName() + " '" + name + "'";
				}
			}
		}
		return null;
	}

	private boolean beansOfType(String typeName) {
		Class<?> type = type(typeName);
		return type != null && this.beanFactory.getBeanNamesForType(type, true, false).length > 0;
	}

	private @Nullable Class<?> type(String name) {
		ClassLoader classLoader = this.beanFactory.getBeanClassLoader();
		return ClassUtils.isPresent(name, classLoader) ? ClassUtils.resolveClassName(name, classLoader) : null;
	}

}
