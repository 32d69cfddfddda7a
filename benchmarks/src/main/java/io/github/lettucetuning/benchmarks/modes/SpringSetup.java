package io.github.lettucetuning.benchmarks.modes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring application to start: properties on top of the common ones (the server's
 * address, {@code spring.data.redis.timeout=2s}, quiet logging) and extra configuration
 * classes.
 */
final class SpringSetup {

	private final Map<String, Object> properties = new LinkedHashMap<>();

	private final List<Class<?>> sources = new ArrayList<>(List.of(RedisApplication.class));

	private SpringSetup() {
		this.properties.put("spring.data.redis.timeout", BenchmarkClients.TIMEOUT.toMillis() + "ms");
		this.properties.put("spring.main.banner-mode", "off");
		this.properties.put("logging.level.root", "warn");
	}

	/**
	 * Start a setup from {@code key=value} properties.
	 * @param properties the properties
	 * @return the setup
	 */
	static SpringSetup of(String... properties) {
		SpringSetup setup = new SpringSetup();
		for (String property : properties) {
			int equals = property.indexOf('=');
			setup.properties.put(property.substring(0, equals), property.substring(equals + 1));
		}
		return setup;
	}

	/**
	 * Size Spring Boot's connection pool of a client; max idle equals max active so that
	 * the pool never closes connections it needs again.
	 * @param client {@code lettuce} or {@code jedis}
	 * @param size the pool size
	 * @return this setup
	 */
	SpringSetup pool(String client, int size) {
		String prefix = "spring.data.redis." + client + ".pool.";
		this.properties.put(prefix + "max-active", Integer.toString(size));
		this.properties.put(prefix + "max-idle", Integer.toString(size));
		return this;
	}

	/**
	 * Add configuration classes.
	 * @param configurations the classes
	 * @return this setup
	 */
	SpringSetup with(Class<?>... configurations) {
		this.sources.addAll(List.of(configurations));
		return this;
	}

	/**
	 * Start the application against a server.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the running context
	 */
	ConfigurableApplicationContext start(String host, int port) {
		Map<String, Object> all = new LinkedHashMap<>(this.properties);
		all.put("spring.data.redis.host", host);
		all.put("spring.data.redis.port", Integer.toString(port));
		return new SpringApplicationBuilder(this.sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.registerShutdownHook(false)
			.properties(all)
			.run();
	}

}
