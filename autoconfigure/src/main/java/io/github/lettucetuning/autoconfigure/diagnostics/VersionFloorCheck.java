package io.github.lettucetuning.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.ClassUtils;

/**
 * Stops startup, before any bean is created, when the application runs a Spring Boot
 * older than 4.1 or a Lettuce older than 7: the failure names the versions instead of
 * surfacing as a linkage error deep inside a bean.
 * <p>
 * Spring Boot 4.0 manages Lettuce 6.8, which lacks the Lettuce 7 API the starter is built
 * on ({@code ExtendedKeepAliveSupport}, adaptive refresh triggers enabled by default and
 * disabled one by one). Spring Boot 4.1 is the first line that manages Lettuce 7, so it
 * is the floor. The check is skipped when the starter is switched off
 * ({@code lettuce.tuning.enabled=false}) or Jedis is the client.
 * <p>
 * Registered in {@code META-INF/spring.factories}; it runs after the application's
 * configuration files have been read, so that the switches above are honoured.
 */
class VersionFloorCheck implements EnvironmentPostProcessor, Ordered {

	static final String BOOT_PROPERTIES_CLASS = "org.springframework.boot.data.redis.autoconfigure.DataRedisProperties";

	/**
	 * Present from Spring Boot 4.1 on (the {@code spring.data.redis.listener.*}
	 * properties).
	 */
	static final String BOOT_4_1_MARKER = BOOT_PROPERTIES_CLASS + "$Listener";

	static final String LETTUCE_CLIENT_CLASS = "io.lettuce.core.RedisClient";

	/** Present in Lettuce 7, absent from the 6.8 that Spring Boot 4.0 manages. */
	static final String LETTUCE_7_MARKER = "io.lettuce.core.resource.ExtendedKeepAliveSupport";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("lettuce.tuning.enabled", Boolean.class, true)
				|| "jedis".equalsIgnoreCase(environment.getProperty("spring.data.redis.client-type", ""))) {
			return;
		}
		UnsupportedVersionException failure = check(application.getClassLoader());
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Return why the classes visible to the given class loader cannot run lettuce-tuning.
	 * @param classLoader the application's class loader
	 * @return the failure, or {@code null} when the versions are supported or Spring Data
	 * Redis with Lettuce is not on the class path at all (the starter then stays off)
	 */
	static @Nullable UnsupportedVersionException check(@Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent(BOOT_PROPERTIES_CLASS, classLoader)
				|| !ClassUtils.isPresent(LETTUCE_CLIENT_CLASS, classLoader)) {
			return null;
		}
		if (!ClassUtils.isPresent(BOOT_4_1_MARKER, classLoader)) {
			return new UnsupportedVersionException(
					"lettuce-tuning requires Spring Boot 4.1 or later, and this application runs Spring Boot "
							+ versionOr(SpringBootVersion.getVersion(), "4.0 or earlier"),
					"Upgrade to Spring Boot 4.1 or later (its dependency management brings the Lettuce 7 the starter "
							+ "needs), or remove lettuce-tuning-spring-boot-starter, or set lettuce.tuning.enabled=false.");
		}
		if (!ClassUtils.isPresent(LETTUCE_7_MARKER, classLoader)) {
			return new UnsupportedVersionException(
					"lettuce-tuning requires Lettuce 7 or later, and this application runs Lettuce "
							+ versionOr(lettuceVersion(classLoader), "6 or earlier"),
					"Use the Lettuce that Spring Boot manages: remove the lettuce.version property or the version "
							+ "given to io.lettuce:lettuce-core.");
		}
		return null;
	}

	private static @Nullable String lettuceVersion(@Nullable ClassLoader classLoader) {
		Class<?> client = ClassUtils.resolveClassName(LETTUCE_CLIENT_CLASS, classLoader);
		Package lettuce = client.getPackage();
		String version = (lettuce != null) ? lettuce.getImplementationVersion() : null;
		// Lettuce's manifest appends the commit: 6.8.2.RELEASE/1234567
		return (version != null) ? version.split("/", 2)[0] : null;
	}

	private static String versionOr(@Nullable String version, String fallback) {
		return (version != null) ? version : fallback;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
