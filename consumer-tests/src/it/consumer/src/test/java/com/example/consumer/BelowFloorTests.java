package com.example.consumer;

import io.github.lettucetuning.autoconfigure.diagnostics.UnsupportedVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * On a Spring Boot below the starter's floor, startup stops before any bean is created,
 * with a message that names the Spring Boot the starter needs; switched off, the starter
 * leaves Spring Boot's own Redis setup.
 */
@EnabledIfSystemProperty(named = "consumer.supported", matches = "false")
@ExtendWith(OutputCaptureExtension.class)
class BelowFloorTests {

	@Test
	void startupFailsNamingTheRequiredSpringBoot(CapturedOutput output) {
		String bootVersion = System.getProperty("consumer.spring-boot.version");
		assertThatExceptionOfType(UnsupportedVersionException.class)
			.isThrownBy(() -> SpringApplication.run(ConsumerApplication.class, "--server.port=0"))
			.withMessage("lettuce-tuning requires Spring Boot 4.1 or later, and this application runs Spring Boot "
					+ bootVersion);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("lettuce-tuning requires Spring Boot 4.1 or later")
			.contains("Upgrade to Spring Boot 4.1 or later")
			.doesNotContain("BeanCreationException")
			.doesNotContain("NoClassDefFoundError");
	}

	@Test
	void switchedOffTheStarterLeavesSpringBootsOwnSetup() {
		try (ConfigurableApplicationContext context = SpringApplication.run(ConsumerApplication.class, "--server.port=0",
				"--lettuce.tuning.enabled=false")) {
			assertThat(context.getBean(RedisConnectionFactory.class)).isExactlyInstanceOf(LettuceConnectionFactory.class);
		}
	}

}
