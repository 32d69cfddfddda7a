package io.github.lettucetuning.autoconfigure;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.lettucetuning.autoconfigure.endpoint.LettuceTuningEndpointAutoConfiguration;
import io.github.lettucetuning.autoconfigure.health.LettuceTuningHealthContributorAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import org.awaitility.Awaitility;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application context the observability integration tests start: lettuce-tuning with
 * metrics (a simple meter registry), the {@code lettuce} health indicator and the
 * {@code lettuce} endpoint.
 */
public final class ObservabilityIntegrationSupport {

	private ObservabilityIntegrationSupport() {
	}

	public static ApplicationContextRunner contextRunner(String clientName) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, LettuceTuningMetricsAutoConfiguration.class,
					LettuceTuningHealthContributorAutoConfiguration.class, LettuceTuningEndpointAutoConfiguration.class,
					MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class))
			.withPropertyValues("spring.application.name=" + clientName, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.timeout=2s", "management.endpoints.web.exposure.include=lettuce");
	}

	/**
	 * Wait until the condition holds.
	 * @param timeout how long to wait at most
	 * @param description what is awaited, for the failure message
	 * @param condition the condition
	 */
	public static void await(Duration timeout, String description, BooleanSupplier condition) {
		await(timeout, () -> description, condition);
	}

	/**
	 * Wait until the condition holds, describing what was awaited only if it never does:
	 * the description can then report the state that kept it from holding.
	 * @param timeout how long to wait at most
	 * @param description what is awaited, for the failure message
	 * @param condition the condition
	 */
	public static void await(Duration timeout, Supplier<String> description, BooleanSupplier condition) {
		Awaitility.await()
			.atMost(timeout)
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(condition.getAsBoolean()).as(description).isTrue());
	}

}
