package io.github.lettucetuning.autoconfigure.diagnostics;

import java.util.function.Consumer;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for {@link InvalidTuningPropertyFailureAnalyzer} and the failures only it
 * explains: a mode whose library is missing or that another property switches off.
 */
@ExtendWith(OutputCaptureExtension.class)
class InvalidTuningPropertyFailureAnalyzerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void analysisNamesThePropertyTheValueAndTheFix() {
		InvalidTuningPropertyException exception = new InvalidTuningPropertyException("lettuce.tuning.connection.mode",
				"pooled", "the pooled mode needs commons-pool2", "Add commons-pool2.");
		FailureAnalysis analysis = new InvalidTuningPropertyFailureAnalyzer()
			.analyze(new IllegalStateException("wrapped", exception));
		assertThat(analysis.getDescription())
			.isEqualTo("The property 'lettuce.tuning.connection.mode' has the invalid value 'pooled': "
					+ "the pooled mode needs commons-pool2.");
		assertThat(analysis.getAction()).isEqualTo("Add commons-pool2.");
		assertThat(analysis.getCause()).isSameAs(exception);
	}

	@Test
	void pooledModeWithoutCommonsPool2FailsWithAnalysis() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.apache.commons.pool2"))
			.withPropertyValues("lettuce.tuning.connection.mode=pooled")
			.run((context) -> assertThat(context).hasFailed().getFailure().satisfies(analysed((analysis) -> {
				assertThat(analysis.getDescription()).contains("'lettuce.tuning.connection.mode'")
					.contains("'pooled'")
					.contains("commons-pool2");
				assertThat(analysis.getAction()).contains("org.apache.commons:commons-pool2")
					.contains("lettuce.tuning.connection.mode");
			})));
	}

	@Test
	void pooledModeWithBootPoolDisabledFailsWithAnalysis() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.connection.mode=pooled", "spring.data.redis.lettuce.pool.enabled=false")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.satisfies(analysed((analysis) -> assertThat(analysis.getAction())
					.contains("spring.data.redis.lettuce.pool.enabled"))));
	}

	@Test
	void unknownModeFailsStartupNamingThePropertyTheValueAndTheValidValues(CapturedOutput output) {
		SpringApplication application = new SpringApplication(MinimalApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(
				() -> application.run("--lettuce.tuning.connection.mode=fastest", "--spring.main.banner-mode=off"));
		assertThat(output).contains("lettuce.tuning.connection.mode")
			.contains("\"fastest\"")
			.contains("The following values are valid")
			.contains("SHARED");
	}

	private static Consumer<Throwable> analysed(Consumer<FailureAnalysis> assertions) {
		return (failure) -> {
			FailureAnalysis analysis = new InvalidTuningPropertyFailureAnalyzer().analyze(failure);
			assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
			assertions.accept(analysis);
		};
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class })
	static class MinimalApplication {

	}

}
