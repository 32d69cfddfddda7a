package io.github.lettucetuning.connection;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The application context the integration tests start: lettuce-tuning with Spring Boot's
 * Redis auto-configuration, as an application would have it.
 */
final class TopologiesIntegrationSupport {

	private TopologiesIntegrationSupport() {
	}

	static ApplicationContextRunner contextRunner(String clientName) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, DataRedisReactiveAutoConfiguration.class))
			.withPropertyValues("spring.application.name=" + clientName, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.timeout=5s");
	}

}
