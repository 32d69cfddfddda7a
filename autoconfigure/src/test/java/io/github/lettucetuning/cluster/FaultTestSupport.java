package io.github.lettucetuning.cluster;

import java.time.Duration;
import java.util.stream.Collectors;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The application the fault tests run: lettuce-tuning with Spring Boot's Redis
 * auto-configuration, a short command timeout and many threads of load.
 */
final class FaultTestSupport {

	/**
	 * The command timeout of the fault tests ({@code spring.data.redis.timeout}).
	 */
	static final Duration TIMEOUT = Duration.ofSeconds(1);

	/**
	 * How much longer than {@link #TIMEOUT} a command may take on a busy 2-core machine,
	 * where six redis-servers, the load threads and the build share the cores: 2.7s was
	 * seen once under extra load. A hang would last the 60s default timeout or longer.
	 */
	static final Duration MARGIN = Duration.ofMillis(2000);

	static final int THREADS = 16;

	private FaultTestSupport() {
	}

	static ApplicationContextRunner contextRunner(String clientName) {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.application.name=" + clientName, "spring.data.redis.client-name=" + clientName,
					"spring.data.redis.timeout=" + TIMEOUT.toMillis() + "ms", "spring.data.redis.connect-timeout=1s");
	}

	static ApplicationContextRunner clusterContextRunner(String clientName, RedisClusterTopology cluster) {
		String nodes = cluster.nodes()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return contextRunner(clientName).withPropertyValues("spring.data.redis.cluster.nodes=" + nodes);
	}

	static Duration maxCommandDuration() {
		return TIMEOUT.plus(MARGIN);
	}

}
