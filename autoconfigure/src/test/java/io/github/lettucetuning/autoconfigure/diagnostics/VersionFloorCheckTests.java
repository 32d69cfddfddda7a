package io.github.lettucetuning.autoconfigure.diagnostics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link VersionFloorCheck} and {@link UnsupportedVersionFailureAnalyzer}.
 */
@ExtendWith(OutputCaptureExtension.class)
class VersionFloorCheckTests {

	private static final FilteredClassLoader BOOT_4_0 = new FilteredClassLoader(VersionFloorCheck.BOOT_4_1_MARKER);

	private static final FilteredClassLoader LETTUCE_6 = new FilteredClassLoader(VersionFloorCheck.LETTUCE_7_MARKER);

	@Test
	void checkWhenBootAndLettuceAreSupportedShouldPass() {
		assertThat(VersionFloorCheck.check(getClass().getClassLoader())).isNull();
	}

	@Test
	void checkWhenBootIsOlderThan41ShouldNameTheFloor() {
		UnsupportedVersionException failure = VersionFloorCheck.check(BOOT_4_0);
		assertThat(failure).isNotNull();
		assertThat(failure.getMessage()).startsWith(
				"lettuce-tuning requires Spring Boot 4.1 or later, and this " + "application runs Spring Boot ");
		assertThat(failure.getAction()).contains("Upgrade to Spring Boot 4.1").contains("lettuce.tuning.enabled=false");
	}

	@Test
	void checkWhenLettuceIsOlderThan7ShouldNameTheFloorAndTheVersion() {
		UnsupportedVersionException failure = VersionFloorCheck.check(LETTUCE_6);
		assertThat(failure).isNotNull();
		assertThat(failure.getMessage())
			.startsWith("lettuce-tuning requires Lettuce 7 or later, and this application " + "runs Lettuce ")
			.doesNotContain("/");
		assertThat(failure.getAction()).contains("lettuce.version");
	}

	@Test
	void checkWithoutLettuceOrSpringDataRedisShouldPass() {
		assertThat(VersionFloorCheck.check(new FilteredClassLoader("io.lettuce"))).isNull();
		assertThat(VersionFloorCheck.check(new FilteredClassLoader(VersionFloorCheck.BOOT_PROPERTIES_CLASS))).isNull();
	}

	@Test
	void postProcessEnvironmentWhenDisabledOrJedisShouldNotFail() {
		SpringApplication application = new SpringApplication(new DefaultResourceLoader(BOOT_4_0));
		VersionFloorCheck check = new VersionFloorCheck();
		assertThatNoException().isThrownBy(() -> check.postProcessEnvironment(
				new MockEnvironment().withProperty("lettuce.tuning.enabled", "false"), application));
		assertThatNoException().isThrownBy(() -> check.postProcessEnvironment(
				new MockEnvironment().withProperty("spring.data.redis.client-type", "jedis"), application));
		assertThatExceptionOfType(UnsupportedVersionException.class)
			.isThrownBy(() -> check.postProcessEnvironment(new MockEnvironment(), application));
	}

	@Test
	void analysisRepeatsTheMessageAndTheAction() {
		UnsupportedVersionException exception = new UnsupportedVersionException("needs X", "Do Y.");
		FailureAnalysis analysis = new UnsupportedVersionFailureAnalyzer()
			.analyze(new IllegalStateException("wrapped", exception));
		assertThat(analysis.getDescription()).isEqualTo("needs X.");
		assertThat(analysis.getAction()).isEqualTo("Do Y.");
	}

	@Test
	void startupBelowTheFloorFailsWithTheAnalysisNotALinkageError(CapturedOutput output) {
		SpringApplication application = new SpringApplication(new DefaultResourceLoader(BOOT_4_0),
				EmptyApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatExceptionOfType(UnsupportedVersionException.class)
			.isThrownBy(() -> application.run("--spring.main.banner-mode=off"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("lettuce-tuning requires Spring Boot 4.1 or later")
			.doesNotContain("BeanCreationException")
			.doesNotContain("NoClassDefFoundError");
	}

	@Configuration(proxyBeanMethods = false)
	static class EmptyApplication {

	}

}
