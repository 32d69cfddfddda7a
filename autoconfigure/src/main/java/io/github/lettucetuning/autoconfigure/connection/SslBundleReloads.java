package io.github.lettucetuning.autoconfigure.connection;

import io.github.lettucetuning.socket.CurrentSslMaterial;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/**
 * Follows the SSL bundle named by {@code spring.data.redis.ssl.bundle} across Spring
 * Boot's reloads ({@code spring.ssl.bundle.*.reload-on-update}), so that every connection
 * the client opens uses the bundle's current material. Spring Boot's own Redis
 * configuration reads the bundle's managers once (spring-data-redis#3270, closed as
 * Boot's to solve); nothing new is configured here: the bundle's own
 * {@code reload-on-update} decides whether it ever changes.
 */
// Works around Boot's Redis configuration reading the bundle's managers once:
// docs/upstream.md#ssl-bundle-reloads-for-redis
final class SslBundleReloads {

	private SslBundleReloads() {
	}

	/**
	 * Follow the bundle the connection details carry when it is the named one.
	 * @param properties Boot's Redis properties
	 * @param bundles the application's SSL bundles, if any
	 * @param inUse the bundle of Boot's connection details, if SSL is on
	 * @return the material that follows the bundle, or {@code null} when the connections
	 * do not use a named bundle (no SSL, the JVM's defaults, or connection details of the
	 * application's own that bring another bundle)
	 */
	static @Nullable CurrentSslMaterial follow(DataRedisProperties properties, @Nullable SslBundles bundles,
			@Nullable SslBundle inUse) {
		String name = properties.getSsl().getBundle();
		if (inUse == null || bundles == null || !StringUtils.hasText(name) || !properties.getSsl().isEnabled()) {
			return null;
		}
		// Boot's registry hands out the instance it holds, so identity tells the named
		// bundle from one that connection details of the application's own created.
		if (bundles.getBundle(name) != inUse) {
			return null;
		}
		CurrentSslMaterial material = new CurrentSslMaterial(name, inUse);
		bundles.addBundleUpdateHandler(name, material::update);
		return material;
	}

}
